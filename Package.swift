// swift-tools-version: 6.2
import PackageDescription

/// Every target of the package compiles in Swift 6 language mode with complete concurrency checking,
/// and with warnings as errors.
let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  // Our targets build without warnings; SwiftPM ignores this for packages that depend on us.
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "Dripper",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Dripper", targets: ["Dripper"]),
    .library(name: "DripperTesting", targets: ["DripperTesting"]),
    .library(name: "DripperDistributed", targets: ["DripperDistributed"]),
    .executable(name: "CounterREPL", targets: ["CounterREPL"]),
    .executable(name: "TodosREPL", targets: ["TodosREPL"]),
    .executable(name: "JobQueue", targets: ["JobQueue"]),
    .executable(name: "Accounts", targets: ["Accounts"]),
  ],
  targets: [
    .target(name: "Dripper", swiftSettings: strict),
    .target(name: "DripperTesting", dependencies: ["Dripper"], swiftSettings: strict),
    // A StationHost on any DistributedActorSystem: the toolchain's Distributed module, nothing more.
    .target(name: "DripperDistributed", dependencies: ["Dripper"], swiftSettings: strict),
    // A distributed actor system for the tests alone, that serializes every call as JSON, between
    // nodes of one process or, through a Unix socket, of two (Tests/DistributedNode).
    .target(
      name: "DistributedTestSupport", dependencies: ["DripperDistributed"],
      path: "Tests/DistributedTestSupport", swiftSettings: strict),
    .executableTarget(
      name: "DistributedNode", dependencies: ["DistributedTestSupport"], path: "Tests/DistributedNode",
      swiftSettings: strict),
    .testTarget(
      name: "DripperDistributedTests",
      dependencies: ["DripperDistributed", "DripperTesting", "DistributedTestSupport", "DistributedNode"],
      swiftSettings: strict
    ),
    // Runs the package's executables from the tests, to kill them.
    .target(name: "ChildProcesses", path: "Tests/ChildProcesses", swiftSettings: strict),
    .testTarget(
      name: "DripperTests",
      dependencies: ["Dripper", "DripperTesting", "JournalCrashChild", "ChildProcesses"],
      swiftSettings: strict),
    // A process the journal tests kill at random moments (Tests/DripperTests/Journal), and the
    // features the journal tests of both test targets share.
    .executableTarget(
      name: "JournalCrashChild", dependencies: ["Dripper"], path: "Tests/JournalCrashChild",
      swiftSettings: strict),
    .testTarget(
      name: "DripperTestingTests", dependencies: ["DripperTesting", "JournalCrashChild"],
      swiftSettings: strict),
    .target(
      name: "REPLSupport", dependencies: ["Dripper"], path: "Samples/REPLSupport", swiftSettings: strict),
    .executableTarget(
      name: "CounterREPL", dependencies: ["Dripper", "REPLSupport"], path: "Samples/CounterREPL",
      swiftSettings: strict),
    .testTarget(
      name: "CounterREPLTests", dependencies: ["CounterREPL", "REPLSupport", "Dripper"], swiftSettings: strict
    ),
    .executableTarget(
      name: "TodosREPL", dependencies: ["Dripper", "REPLSupport"], path: "Samples/TodosREPL",
      swiftSettings: strict),
    .testTarget(
      name: "TodosREPLTests", dependencies: ["TodosREPL", "REPLSupport", "DripperTesting"],
      swiftSettings: strict),
    .executableTarget(
      name: "JobQueue", dependencies: ["Dripper", "REPLSupport"], path: "Samples/JobQueue",
      swiftSettings: strict),
    .testTarget(
      name: "JobQueueTests", dependencies: ["JobQueue", "DripperTesting"], swiftSettings: strict),
    .executableTarget(
      name: "Accounts", dependencies: ["Dripper"], path: "Samples/Accounts", swiftSettings: strict),
    .testTarget(
      name: "AccountsTests", dependencies: ["Accounts", "Dripper"], swiftSettings: strict),
    .executableTarget(
      name: "dripper-bench", dependencies: ["Dripper", "DripperDistributed", "DistributedTestSupport"],
      path: "Benchmarks", exclude: ["README.md"],
      swiftSettings: strict),
  ]
)
