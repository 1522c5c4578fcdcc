// swift-tools-version:6.2
import PackageDescription

// Dripper's integration with the Swift server ecosystem: a StationHost run as a
// swift-service-lifecycle Service, its events as swift-log logs, swift-metrics metrics and
// swift-distributed-tracing spans. A package of its own, so that Dripper itself depends on
// nothing but the toolchain.
let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "DripperService",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "DripperService", targets: ["DripperService"])
  ],
  dependencies: [
    .package(name: "Dripper", path: "../.."),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
  ],
  targets: [
    .target(
      name: "DripperService",
      dependencies: [
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "DripperServiceTests",
      dependencies: [
        "DripperService",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        .product(name: "InMemoryLogging", package: "swift-log"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
      ],
      swiftSettings: strict
    ),
  ]
)
