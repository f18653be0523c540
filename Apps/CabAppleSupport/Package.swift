// swift-tools-version: 6.0
// The Apple-only adapters both app shells share: Core Location, the Keychain, Network, UIKit images. Not built on
// Linux CI (`.ci/run` parses every file); build it with the apps in Xcode (see README.md).
import PackageDescription

let package = Package(
    name: "CabAppleSupport",
    platforms: [.iOS(.v18)],
    products: [.library(name: "CabAppleSupport", targets: ["CabAppleSupport"])],
    dependencies: [.package(name: "SwiftCab", path: "../..")],
    targets: [
        .target(
            name: "CabAppleSupport",
            dependencies: [
                .product(name: "CabAppModels", package: "SwiftCab"), .product(name: "CabClient", package: "SwiftCab"),
                .product(name: "CabGeo", package: "SwiftCab"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
