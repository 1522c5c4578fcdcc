// swift-tools-version:6.2
import CompilerPluginSupport
import PackageDescription

// TCA's macros for Dripper: `@CasePathable`, which writes an enum's table of case paths, so that
// `\.login.view.delegate` names a path as TCA's key paths do. A package of its own, on
// swift-syntax, so that Dripper itself depends on nothing but the toolchain.
let strict: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "DripperMacros",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "DripperMacros", targets: ["DripperMacros"])
  ],
  dependencies: [
    .package(name: "Dripper", path: "../.."),
    .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.1"..<"604.0.0"),
  ],
  targets: [
    .macro(
      name: "DripperMacrosPlugin",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
      ],
      swiftSettings: strict
    ),
    .target(
      name: "DripperMacros",
      dependencies: ["DripperMacrosPlugin", .product(name: "Dripper", package: "Dripper")],
      swiftSettings: strict
    ),
    .testTarget(
      name: "DripperMacrosPluginTests",
      dependencies: [
        "DripperMacrosPlugin",
        .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "DripperMacrosTests",
      dependencies: [
        "DripperMacros",
        .product(name: "Dripper", package: "Dripper"),
        .product(name: "DripperTesting", package: "Dripper"),
      ],
      swiftSettings: strict
    ),
  ]
)
