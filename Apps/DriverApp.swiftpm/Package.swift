// swift-tools-version: 6.0
// The SwiftCab driver app: open this folder in Xcode 26 (iOS 18 or later). Views and the CLLocationManager
// adapter only; every decision is in CabAppModels and CabClient's LocationReporter, tested on Linux. Not compiled
// on Linux CI: `.ci/run` parses every file (see README.md).
import AppleProductTypes
import PackageDescription

let package = Package(
    name: "DriverApp",
    platforms: [.iOS("18.0")],
    products: [
        .iOSApplication(
            name: "SwiftCab Driver",
            targets: ["AppModule"],
            bundleIdentifier: "org.swiftcab.driver",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .car),
            accentColor: .presetColor(.orange),
            supportedDeviceFamilies: [.phone],
            supportedInterfaceOrientations: [.portrait],
            capabilities: [
                .locationWhenInUse(
                    purposeString:
                        "SwiftCab shares your position with the dispatcher while you are online, so trips near you are offered to you."
                ),
                .locationAlwaysAndWhenInUse(
                    purposeString:
                        "SwiftCab keeps sharing your position while the app is in the background during your shift, so riders see you coming and the fare follows the road you drove."
                ),
                .camera(purposeString: "SwiftCab scans the rider's QR code to start the trip."),
            ],
            // UIBackgroundModes (location) and local-network HTTP: no capability exists for them.
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
