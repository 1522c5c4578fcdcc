import Testing

@testable import Dripper

/// The drain task's pacing on its own: each decision from two looks at the mailbox's counters.
@Suite struct DrainPacingTests {
  typealias Look = DrainPacing.Look

  @Test func theFirstLookDrainsWhatWaits() {
    #expect(DrainPacing.decide(previous: nil, now: Look(poured: 3, taken: 0)) == .drain)
  }

  @Test func anEmptyMailboxLingersUntilALookSeesNothingNew() {
    #expect(DrainPacing.decide(previous: nil, now: Look(poured: 5, taken: 5)) == .wait)
    #expect(
      DrainPacing.decide(previous: Look(poured: 5, taken: 5), now: Look(poured: 5, taken: 5)) == .end)
  }

  @Test func actionsCallersTookAreLeftToThemAtLongerIntervals() {
    #expect(
      DrainPacing.decide(previous: Look(poured: 2, taken: 2), now: Look(poured: 5, taken: 5)) == .backOff)
    let previous = Look(poured: 10, taken: 4)
    #expect(DrainPacing.decide(previous: previous, now: Look(poured: 12, taken: 8)) == .backOff)
  }

  @Test func theIntervalDoublesWhileCallersDrainAndReturnsWhenTheTaskDrains() {
    var pacing = DrainPacing()
    var poured: UInt64 = 0
    var waits: [Duration] = []
    // Awaiting callers pour and take one action between each look.
    for _ in 0..<8 {
      poured += 1
      _ = pacing.next(Look(poured: poured, taken: poured))
      pacing.looked(Look(poured: poured, taken: poured))
      waits.append(pacing.wait)
    }
    let base = DrainPacing.interval
    #expect(waits.prefix(6) == [base, base * 2, base * 4, base * 8, base * 16, base * 32])
    #expect(waits.last == DrainPacing.longestInterval)
    // A pour nobody awaits: drained at the next look, and the looks come often again.
    #expect(pacing.next(Look(poured: poured + 1, taken: poured)) == .drain)
    #expect(pacing.wait == base)
  }

  @Test func waitingActionsThatNobodyTookAreDrained() {
    let previous = Look(poured: 10, taken: 4)
    #expect(DrainPacing.decide(previous: previous, now: Look(poured: 12, taken: 4)) == .drain)
    // The same actions, still untaken at the next look: drained, never left for a later pour.
    #expect(DrainPacing.decide(previous: previous, now: previous) == .drain)
  }

  @Test func aBurstGrowsItsBatchUntilTheThreshold() {
    let previous = Look(poured: 100, taken: 100)
    let burst = DrainPacing.burst
    #expect(
      DrainPacing.decide(previous: previous, now: Look(poured: 100 + burst, taken: 100)) == .wait)
    #expect(
      DrainPacing.decide(previous: previous, now: Look(poured: 100 + burst - 1, taken: 100)) == .drain)
    let full = Look(poured: 100 + DrainPacing.batchThreshold, taken: 100)
    #expect(DrainPacing.decide(previous: previous, now: full) == .drain)
  }

  @Test func aBurstThatStopsIsDrainedAtTheNextLook() {
    let during = Look(poured: 200, taken: 0)
    #expect(DrainPacing.decide(previous: Look(poured: 0, taken: 0), now: during) == .wait)
    #expect(DrainPacing.decide(previous: during, now: during) == .drain)
  }

  @Test func countsNearTheTopOfTheirRangeDoNotTrap() {
    let previous = Look(poured: .max - 1, taken: .max - 3)
    #expect(DrainPacing.decide(previous: previous, now: Look(poured: .max, taken: .max - 3)) == .drain)
  }
}
