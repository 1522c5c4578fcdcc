// swift-tools-version:6.2
import PackageDescription

// A StationHost's keys in PostgreSQL: a KeyStore on postgres-nio that the nodes of a cluster
// share, each write fenced by its key's epoch. A package of its own, so that Dripper itself
// depends on nothing but the toolchain.
let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "DripperPostgres",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "DripperPostgres", targets: ["DripperPostgres"]),
    .executable(name: "dripper-postgres-bench", targets: ["DripperPostgresBench"]),
  ],
  dependencies: [
    .package(name: "Dripper", path: "../.."),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
  ],
  targets: [
    .target(
      name: "DripperPostgres",
      dependencies: [
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    // A process the tests start and kill -9 under load: a host on the store, pouring.
    .executableTarget(
      name: "DripperPostgresNode",
      dependencies: [
        "DripperPostgres",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      swiftSettings: strict
    ),
    .executableTarget(
      name: "DripperPostgresBench",
      dependencies: [
        "DripperPostgres",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "DripperPostgresTests",
      dependencies: [
        "DripperPostgres",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "DripperTesting", package: "Dripper"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict
    ),
  ]
)
