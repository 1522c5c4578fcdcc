/// The drain task: how pours made with `Station.pour(_:)` reach the actor when nobody awaits them.
extension StateHandler {
  /// Starts the task that drains the mailbox.
  ///
  /// It runs on the global executor even in a watched Station, whose executor counts it as away
  /// from now until it has drained: a pour not yet reduced keeps the Station from settling.
  @usableFromInline
  nonisolated func scheduleDrainTask() {
    guard let executor else {
      Task.detached { await self.lingerAndDrain() }
      return
    }
    executor.leave()
    Task.detached {
      await self.drainUntilEmpty()
      executor.comeBack()
    }
  }

  /// The drain task's loop in a watched Station: drain until the mailbox is empty, without
  /// lingering, so that no pour waits while the Station looks settled.
  nonisolated func drainUntilEmpty() async {
    repeat {
      await drainEntry(self)
    } while !mailbox.state.withLock({ $0.endScheduledDrainIfEmpty() })
  }

  /// The drain task's loop.
  ///
  /// Callers that await their pours drain the mailbox themselves. While the Station stays busy,
  /// the task lingers, looking at the mailbox every ``DrainPacing/interval`` or less often, rather
  /// than ending, so that the next pours neither spawn a task nor wake a thread each.
  /// ``DrainPacing`` decides, from two counters read without the mailbox's lock, when it takes a
  /// batch; it ends after a look at an idle mailbox.
  nonisolated func lingerAndDrain() async {
    var pacing = DrainPacing()
    while true {
      switch pacing.next(currentLook) {
      case .drain:
        await drainEntry(self)
      case .wait, .backOff:
        break
      case .end:
        // Pours may have come since the look: then the mailbox is not empty, and it drains them.
        if mailbox.state.withLock({ $0.endScheduledDrainIfEmpty() }) { return }
        await drainEntry(self)
      }
      pacing.looked(currentLook)
      try? await Task.sleep(for: pacing.wait)
    }
  }

  /// The mailbox's counters now, read without its lock.
  nonisolated var currentLook: DrainPacing.Look {
    DrainPacing.Look(poured: mailbox.poured.load(ordering: .relaxed), taken: taken.load(ordering: .relaxed))
  }
}
