import DripperTesting
import Testing

@testable import Dripper

@Suite struct CombineDrippersTests {
  @Test func combinedDrippersRunInOrderUnderOneModifier() async {
    struct Feature: Dripper {
      var body: some Dripper<[String], String> {
        CombineDrippers {
          Append(name: "a")
          Append(name: "b")
        }
        .onChange(of: \.count) { _, new in new == 2 ? .send("changed") : .none }
      }
    }
    let station = Station(initialState: [String]()) { Feature() }
    await station.pour("go").finish()
    #expect(await station.state == ["a", "b", "a", "b"])
  }
}
