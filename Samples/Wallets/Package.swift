// swift-tools-version:6.2
import PackageDescription

// An HTTP service a user would copy: one wallet per id, each a key of a StationHost kept in a
// folder, served by Hummingbird 2 and run under swift-service-lifecycle through DripperService.
let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "Wallets",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "Wallets", targets: ["Wallets"]),
    .executable(name: "wallets-load", targets: ["WalletsLoad"]),
  ],
  dependencies: [
    .package(name: "Dripper", path: "../.."),
    .package(name: "DripperService", path: "../../Integrations/DripperService"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
  ],
  targets: [
    // The feature: a wallet, its requests and their replies. Dripper alone.
    .target(
      name: "WalletFeature",
      dependencies: [.product(name: "Dripper", package: "Dripper")],
      swiftSettings: strict),
    // The HTTP routes over a host of wallets.
    .target(
      name: "WalletsServer",
      dependencies: [
        "WalletFeature",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "DripperService", package: "DripperService"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: strict),
    .executableTarget(name: "Wallets", dependencies: ["WalletsServer"], swiftSettings: strict),
    // A client: load with kill -9 and SIGTERM checks, and the benchmark.
    .executableTarget(
      name: "WalletsLoad",
      dependencies: [
        "WalletsServer",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "WalletsTests",
      dependencies: [
        "WalletFeature", "WalletsServer",
        .product(name: "DripperTesting", package: "Dripper"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: strict),
  ]
)
