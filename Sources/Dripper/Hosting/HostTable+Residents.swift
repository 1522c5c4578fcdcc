extension HostTable {
  /// Moves a resident key, at `index`, to the front of the list: the most recently used.
  @inlinable
  mutating func touch(_ index: Int, at now: Int64) {
    nodes[index].lastUsed = now
    guard index != head else { return }
    detach(index)
    attachAtHead(index)
  }

  /// Adds a key at the front of the list, used at `now`.
  @discardableResult
  mutating func link(_ key: Key, _ resident: Resident, at now: Int64) -> Int {
    let index: Int
    if let free = freeNodes.popLast() {
      index = free
      nodes[index] = Node(key: key, resident: resident, lastUsed: now)
    } else {
      index = nodes.count
      nodes.append(Node(key: key, resident: resident, lastUsed: now))
    }
    nodeOfKey[key] = index
    attachAtHead(index)
    return index
  }

  mutating func unlink(_ key: Key) {
    if lastPosted?.key == key { lastPosted = nil }
    guard let index = nodeOfKey.removeValue(forKey: key) else { return }
    nodes[index].resident = nil
    detach(index)
    freeNodes.append(index)
  }

  @inlinable
  mutating func detach(_ index: Int) {
    let (previous, next) = (nodes[index].previous, nodes[index].next)
    if previous >= 0 { nodes[previous].next = next } else { head = next }
    if next >= 0 { nodes[next].previous = previous } else { tail = previous }
    nodes[index].previous = -1
    nodes[index].next = -1
  }

  @inlinable
  mutating func attachAtHead(_ index: Int) {
    nodes[index].previous = -1
    nodes[index].next = head
    if head >= 0 { nodes[head].previous = index }
    head = index
    if tail < 0 { tail = index }
  }
}
