/// One open throttle window of an id.
///
/// The first effect throttled under an id runs at once and opens a window. An effect throttled
/// inside the window waits for its end in a *held* slot; a *timer* slot's task sleeps until then,
/// and its end starts the held effect, which opens the next window. A window whose time is up
/// with nothing held is closed: the registry forgets it, when its timer fires or, if it had
/// none, at the next sweep.
struct ThrottleWindow: Sendable {
  /// The window's own slot, which carries its keys: cancelling any closes the window.
  let slot: EffectSlotID
  /// The time elapsed since the window opened, on the throttle's clock.
  var elapsed: @Sendable () -> Duration
  let interval: Duration
  var held: EffectSlotID?
  var timer: EffectSlotID?

  /// Whether the window's time is up and nothing waits for it.
  var isOver: Bool { timer == nil && held == nil && elapsed() >= interval }
}

extension EffectRegistryState {
  enum ThrottleDecision {
    /// No window is open: start the effect now (a window was opened).
    case runNow
    /// The effect is held for the end of the window. When `timer` is set, the caller starts its
    /// task: it sleeps for `remaining`, then calls ``fireWindow(of:timer:now:_:)``.
    case held(timer: EffectSlotID?, remaining: Duration)
    /// Another effect is held and the throttle keeps the first: this one does not run.
    case dropped
  }

  /// Decides what happens to an effect throttled under `key`.
  ///
  /// - Parameters:
  ///   - hold: The slot to hold the effect in (a waiting slot carrying `key`), and its work.
  ///   - windowKeys: The keys that close the window when cancelled.
  ///   - now: A stopwatch started now on the throttle's clock.
  mutating func throttle(
    under key: EffectKey, interval: Duration, latest: Bool, windowKeys: SmallList<EffectKey>,
    hold: Request, work: @autoclosure () -> Work, now: @escaping @Sendable () -> Duration,
    _ after: inout EffectRegistryAftermath<Work>
  ) -> ThrottleDecision {
    sweepWindowsIfNeeded(&after)
    if let window = windows[key] {
      if window.isOver {
        closeWindow(of: key, &after)
      } else {
        return holdInWindow(under: key, window, latest: latest, windowKeys: windowKeys, hold, work(), &after)
      }
    }
    guard
      let slot = reserve(
        Request(role: .window, pour: nil, parent: nil, keys: windowKeys, origin: hold.origin))
    else { return .dropped }
    windows[key] = ThrottleWindow(slot: slot, elapsed: now, interval: interval)
    windowOf[slot] = key
    return .runNow
  }

  private mutating func holdInWindow(
    under key: EffectKey, _ window: ThrottleWindow, latest: Bool, windowKeys: SmallList<EffectKey>,
    _ request: Request, _ work: Work, _ after: inout EffectRegistryAftermath<Work>
  ) -> ThrottleDecision {
    if let held = window.held {
      guard latest else { return .dropped }
      end(held, &after)  // Replaced: its pour no longer waits for it.
    }
    var request = request
    request.role = .waiting
    request.guarded = false
    guard let held = reserve(request) else { return .dropped }
    pending[held] = work
    windowOf[held] = key
    windows[key]!.held = held
    let remaining = max(.zero, window.interval - window.elapsed())
    guard windows[key]!.timer == nil else { return .held(timer: nil, remaining: remaining) }
    let timer = reserve(
      Request(role: .timer, pour: nil, parent: nil, keys: windowKeys, origin: request.origin))
    windows[key]!.timer = timer
    if let timer { windowOf[timer] = key }
    return .held(timer: timer, remaining: remaining)
  }

  /// The window's time is up: starts the held effect, which opens the next window, or closes the
  /// window if nothing is held.
  mutating func fireWindow(
    of key: EffectKey, timer: EffectSlotID, now: @escaping @Sendable () -> Duration,
    _ after: inout EffectRegistryAftermath<Work>
  ) {
    guard var window = windows[key], window.timer == timer else { return }
    window.timer = nil
    windowOf[timer] = nil
    guard let held = window.held else {
      windows[key] = window
      return closeWindow(of: key, &after)
    }
    window.held = nil
    window.elapsed = now
    windows[key] = window
    windowOf[held] = nil
    activate(held, &after)
  }

  /// A window, its timer or its held slot ended: the window forgets it.
  mutating func windowSlotEnded(_ id: EffectSlotID, role: Role, _ after: inout EffectRegistryAftermath<Work>)
  {
    guard let key = windowOf.removeValue(forKey: id), var window = windows[key] else { return }
    switch id {
    case window.slot:
      windows[key] = nil
      if let timer = window.timer { cancelTimer(timer, &after) }
    case window.timer:
      window.timer = nil
      windows[key] = window
    case window.held:
      window.held = nil
      windows[key] = window
    default:
      break
    }
  }

  private mutating func cancelTimer(_ timer: EffectSlotID, _ after: inout EffectRegistryAftermath<Work>) {
    windowOf[timer] = nil
    guard let task = slots[timer]?.task, slots[timer]?.cancelled == false else { return }
    after.cancel.append(task)
  }

  private mutating func closeWindow(of key: EffectKey, _ after: inout EffectRegistryAftermath<Work>) {
    guard let window = windows[key] else { return }
    end(window.slot, &after)
  }

  /// Forgets windows that are over, once they have doubled in number since the last sweep: the
  /// cost is amortized over the throttles that opened them, and memory stays within twice the
  /// windows still open.
  private mutating func sweepWindowsIfNeeded(_ after: inout EffectRegistryAftermath<Work>) {
    guard windows.count >= windowSweepThreshold else { return }
    for (key, window) in windows where window.isOver { closeWindow(of: key, &after) }
    windowSweepThreshold = max(64, windows.count * 2)
  }

  /// How many throttle windows are open, for tests.
  var windowCount: Int { windows.count }
}
