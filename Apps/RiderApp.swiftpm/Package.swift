// swift-tools-version: 6.0
// The SwiftCab rider app: open this folder in Xcode 26 (iOS 18 or later). Views only; every decision is in
// CabAppModels, tested on Linux. Not compiled on Linux CI: `.ci/run` parses every file (see README.md).
import AppleProductTypes
import PackageDescription

let package = Package(
    name: "RiderApp",
    platforms: [.iOS("18.0")],
    products: [
        .iOSApplication(
            name: "SwiftCab Rider",
            targets: ["AppModule"],
            bundleIdentifier: "org.swiftcab.rider",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .car),
            accentColor: .presetColor(.blue),
            supportedDeviceFamilies: [.phone],
            supportedInterfaceOrientations: [.portrait],
            capabilities: [
                .locationWhenInUse(
                    purposeString: "SwiftCab uses your location as the pickup, so your driver can find you.")
            ],
            additionalInfoPlistContentFilePath: "Info.plist"
        )
    ],
    dependencies: [
        .package(name: "SwiftCab", path: "../.."),
        .package(name: "CabAppleSupport", path: "../CabAppleSupport"),
    ],
    targets: [
        .executableTarget(
            name: "AppModule",
            dependencies: [
                .product(name: "CabAppModels", package: "SwiftCab"), .product(name: "CabClient", package: "SwiftCab"),
                .product(name: "CabGeo", package: "SwiftCab"),
                .product(name: "CabAppleSupport", package: "CabAppleSupport"),
            ],
            path: "Sources"
        )
    ],
    swiftLanguageModes: [.v6]
)
