// swift-tools-version:6.0
import PackageDescription

/// A C library from Debian, wrapped as a module (see STYLE.md §1).
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "SwiftCab",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "cab", targets: ["cab"]),
        .library(name: "CabClient", targets: ["CabClient"]),
        .library(name: "CabAppModels", targets: ["CabAppModels"]),
        // The coordinate types the app shells import beside the models (Apps/).
        .library(name: "CabGeo", targets: ["CabGeo"]),
    ],
    // The Swift server ecosystem's own packages (issue 14). swift-metrics with swift-prometheus was measured and
    // left out: through its API every request costs 3.5-6 µs more than our registry (docs/performance.md). On machines without GitHub, `scripts/vendor-mirrors.sh`
    // (run by `make`) points SwiftPM at local mirrors of exactly these; elsewhere they come from GitHub.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: ["zlib1g-dev"]),
        systemLibrary("CQREncode", pkgConfig: "libqrencode", apt: ["libqrencode-dev"]),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        systemLibrary("CLibPQ", pkgConfig: "libpq", apt: ["libpq-dev"]),
        // No pkgConfig: hiredis's .pc adds -D_FILE_OFFSET_BITS=64, a flag SwiftPM refuses (with a warning);
        // <hiredis/hiredis.h> is on the default include path.
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", providers: [.apt(["libhiredis-dev"])]),

        .target(name: "CabGeo"),
        // C libraries wrapped once each, in a thin module with no domain types (STYLE §1).
        .target(name: "CabZlib", dependencies: ["CZlib"]),
        .target(name: "CabQR", dependencies: ["CQREncode"]),
        .target(name: "CabCrypto", dependencies: ["CCrypto"]),
        .target(name: "CabOSM", dependencies: ["CabGeo", "CabZlib"]),
        .target(name: "CabRouting", dependencies: ["CabGeo"]),
        .target(name: "CabSQLite", dependencies: ["CSQLite"]),
        .target(name: "CabPostgres", dependencies: ["CLibPQ"]),
        .target(name: "CabRedis", dependencies: ["CHiredis"]),
        .target(name: "CabPlaces", dependencies: ["CabGeo", "CabSQLite"]),
        .target(name: "CabBaseMap", dependencies: ["CabGeo", "CabSQLite"]),
        .target(name: "CabImport", dependencies: ["CabGeo", "CabOSM", "CabRouting", "CabPlaces", "CabBaseMap"]),
        .target(name: "CabCore", dependencies: ["CabGeo"]),
        .target(name: "CabTracking", dependencies: ["CabGeo", "CabCore"]),
        .target(name: "CabCluster", dependencies: ["CabCore", "CabGeo", "CabTracking", "CabDispatch", "CabRedis"]),
        .target(name: "CabStore", dependencies: ["CabCore", "CabSQLite", "CabPostgres"]),
        .target(name: "CabHTTP", dependencies: ["CMicroHTTPD", .product(name: "Logging", package: "swift-log")]),
        // The application (issue 14): dispatch, the trip service, tracking and routing services over CabCore's
        // ports; never CabHTTP or CabStore (docs/architecture.md).
        .target(
            name: "CabDispatch",
            dependencies: [
                "CabGeo", "CabCore", "CabTracking", "CabRouting", .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "CabAPI",
            dependencies: [
                "CabGeo", "CabRouting", "CabPlaces", "CabBaseMap", "CabCore", "CabTracking", "CabDispatch", "CabStore",
                "CabHTTP", "CabQR", "CabCrypto", "CabZlib", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "CabClient", dependencies: ["CabGeo"]),
        .target(name: "CabAppModels", dependencies: ["CabClient", "CabGeo"]),

        // Benchmarks and simulations (STYLE.md §8), never inside a library module: they see what they measure
        // through `package` access. CabLoopback is the loopback HTTP client, `cab serve` child process and SSE
        // reading that the benchmarks and the tests (CabTestSupport) share.
        .target(name: "CabLoopback", dependencies: ["CabClient"]),
        .target(name: "CabRoutingBench", dependencies: ["CabGeo", "CabRouting"]),
        .target(name: "CabPlacesBench", dependencies: ["CabGeo", "CabSQLite", "CabPlaces"]),
        .target(
            name: "CabBench",
            dependencies: [
                "CabGeo", "CabRouting", "CabRoutingBench", "CabPlaces", "CabPlacesBench", "CabImport", "CabBaseMap",
                "CabCore", "CabTracking", "CabDispatch", "CabStore", "CabHTTP", "CabAPI", "CabClient", "CabLoopback",
            ]
        ),
        .executableTarget(
            name: "cab",
            dependencies: [
                "CabGeo", "CabOSM", "CabRouting", "CabPlaces", "CabBaseMap", "CabImport", "CabCore", "CabTracking",
                "CabStore",
                "CabHTTP", "CabAPI", "CabClient", "CabPostgres", "CabDispatch", "CabBench", "CabRoutingBench",
                "CabPlacesBench", "CabLoopback", "CabCluster", "CabRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Fuzz targets (issue 15): `make fuzz` builds them with libFuzzer and AddressSanitizer; a plain build
        // replays the corpus in Fuzz/corpus (`make test`).
        .executableTarget(
            name: "CabFuzz", dependencies: ["CabOSM", "CabHTTP", "CabCore", "CabTracking", "CabAPI"],
            path: "Fuzz/Sources/CabFuzz"),

        .target(
            name: "CabTestSupport", dependencies: ["CabGeo", "CabCore", "CabLoopback"], path: "Tests/CabTestSupport"),
        .testTarget(name: "CabGeoTests", dependencies: ["CabGeo", "CabTestSupport"]),
        .testTarget(name: "CabOSMTests", dependencies: ["CabOSM", "CabTestSupport"]),
        .testTarget(
            name: "CabRoutingTests",
            dependencies: ["CabRouting", "CabRoutingBench", "CabOSM", "CabImport", "CabTestSupport"]),
        .testTarget(name: "CabSQLiteTests", dependencies: ["CabSQLite", "CabTestSupport"]),
        .testTarget(name: "CabPostgresTests", dependencies: ["CabPostgres", "CabTestSupport"]),
        .testTarget(name: "CabRedisTests", dependencies: ["CabRedis", "CabTestSupport"]),
        .testTarget(
            name: "CabClusterTests",
            dependencies: ["CabCluster", "CabRedis", "CabCore", "CabGeo", "CabTracking", "CabStore", "CabTestSupport"]),
        .testTarget(
            name: "CabPlacesTests",
            dependencies: ["CabPlaces", "CabPlacesBench", "CabOSM", "CabImport", "CabTestSupport"]),
        .testTarget(
            name: "CabBaseMapTests", dependencies: ["CabBaseMap", "CabOSM", "CabImport", "CabTestSupport"]),
        .testTarget(name: "CabImportTests", dependencies: ["CabImport", "CabRoutingBench", "CabTestSupport"]),
        .testTarget(name: "CabCoreTests", dependencies: ["CabCore", "CabTestSupport"]),
        .testTarget(name: "CabTrackingTests", dependencies: ["CabTracking", "CabTestSupport"]),
        .testTarget(name: "CabDispatchTests", dependencies: ["CabDispatch", "CabCore", "CabTracking", "CabGeo"]),
        .testTarget(name: "CabStoreTests", dependencies: ["CabStore", "CabPostgres", "CabTestSupport"]),
        .testTarget(name: "CabHTTPTests", dependencies: ["CabHTTP", "CabTestSupport"]),
        .testTarget(name: "CabZlibTests", dependencies: ["CabZlib"]),
        .testTarget(
            name: "CabAPITests",
            dependencies: [
                "CabAPI", "CabHTTP", "CabCore", "CabStore", "CabTracking", "CabDispatch", "CabClient", "CabBench",
                "CabRoutingBench", "CabBaseMap", "CabImport", "CabZlib", "CabTestSupport",
            ]),
        .testTarget(name: "CabClientTests", dependencies: ["CabClient", "CabTestSupport"]),
        .testTarget(
            name: "CabAppModelsTests", dependencies: ["CabAppModels", "CabClient", "CabGeo", "CabTestSupport"]),
        .testTarget(name: "CabEndToEndTests", dependencies: ["CabTestSupport"]),
        // The executable's own parts (log handler, configuration mapping), in process.
        .testTarget(
            name: "cabTests",
            dependencies: [
                "cab", "CabAPI", "CabCore", "CabDispatch", "CabHTTP", "CabStore", "CabTracking",
                .product(name: "Logging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
