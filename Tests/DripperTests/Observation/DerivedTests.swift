import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct DerivedTests {
  @Test func aDerivedValueIsComputedOncePerReductionWhateverItsObservers() async {
    let station = Station(initialState: Board.State()) { Board() }
    let total = station.derived { $0.items.reduce(0, +) }
    var iterators = (0..<5).map { _ in total.values.buffering(.unbounded).makeAsyncIterator() }
    for index in iterators.indices { #expect(await iterators[index].next() == 0) }
    let before = total.computations
    for item in 1...10 { station.pour(.add(item)) }
    #expect(await total.value == 55)
    #expect(total.computations - before == 10)
    for index in iterators.indices { #expect(await iterators[index].next() == 1) }
  }

  @Test func derivedValuesChain() async {
    let station = Station(initialState: Board.State()) { Board() }
    let evens = station.derived { $0.items.filter { $0.isMultiple(of: 2) } }
    let count = evens.derived { $0.count }
    var counts = count.values.buffering(.unbounded).makeAsyncIterator()
    #expect(await counts.next() == 0)
    station.pour(.add(1))
    station.pour(.add(2))
    station.pour(.add(3))
    station.pour(.add(4))
    #expect(await count.value == 2)
    #expect(await counts.next() == 1)
    #expect(await counts.next() == 2)
    // The chained derivation ran only when `evens` changed: twice, plus its first value.
    #expect(count.computations == 3)
  }

  @Test func aDerivedValueThatIsReleasedStopsBeingComputed() async {
    let station = Station(initialState: Board.State()) { Board() }
    var derived: Derived<Int>? = station.derived { $0.count }
    #expect(await derived?.value == 0)
    #expect(station.rootHandler!.publishers.count == 1)
    derived = nil
    #expect(station.rootHandler!.publishers.count == 0)
  }
}
