/// A binary min-heap: the smallest element in O(1), insertion and removal of it in O(log n).
struct MinHeap<Element: Comparable> {
  private(set) var elements: [Element] = []

  init() {}

  var isEmpty: Bool { elements.isEmpty }

  var count: Int { elements.count }

  var min: Element? { elements.first }

  mutating func insert(_ element: Element) {
    elements.append(element)
    var child = elements.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child] < elements[parent] else { break }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  mutating func removeMin() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let smallest = elements.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallestChild = parent
      if left < elements.count, elements[left] < elements[smallestChild] { smallestChild = left }
      if right < elements.count, elements[right] < elements[smallestChild] { smallestChild = right }
      guard smallestChild != parent else { break }
      elements.swapAt(parent, smallestChild)
      parent = smallestChild
    }
    return smallest
  }

  /// Keeps only the elements that satisfy `isIncluded`, in O(n).
  mutating func filter(_ isIncluded: (Element) -> Bool) {
    let kept = elements.filter(isIncluded)
    elements = []
    for element in kept { insert(element) }
  }
}

extension MinHeap: Sendable where Element: Sendable {}
