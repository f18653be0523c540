import CabCore
import CabGeo
import CabTracking

#if canImport(Glibc)
    import Glibc
#endif

/// `cab bench tracking`'s in-process figures: batched ingest, nearest-10 against a brute-force scan measured in
/// the same run, and memory per driver.
public enum TrackingBenchmark {
    /// What the benchmark measured.
    public struct Result: Sendable, Hashable {
        /// Drivers loaded.
        public var drivers: Int
        /// Fixes per second through `LiveFleet.ingest(_:now:)` (rules plus index), in batches.
        public var ingestBatchedPerSecond: Double
        /// Median nearest-10 search, microseconds.
        public var nearest10MedianMicroseconds: Double
        /// 99th percentile nearest-10 search, microseconds.
        public var nearest10P99Microseconds: Double
        /// Median nearest-10 by scanning every driver, microseconds.
        public var bruteforceNearest10MedianMicroseconds: Double
        /// Heap bytes per driver counted from the containers' capacities (`LiveFleet.memoryFootprint`).
        public var bytesPerDriver: Double
        /// Growth of the process's resident memory (`/proc/self/statm`) while loading, per driver: a cross-check
        /// that includes allocator overhead and transient garbage; nil where unavailable.
        public var residentBytesPerDriver: Double?
    }

    /// Loads `drivers` drivers in a 22 x 28 km box over Helsinki, ingests `fixesPerDriver` more fixes each in
    /// batches, and times `queries` nearest-10 searches (a tenth as many brute-force scans).
    public static func run(drivers: Int = 100_000, fixesPerDriver: Int = 10, queries: Int = 20_000, seed: UInt64 = 1)
        -> Result
    {
        var random = SplitMix64(seed: seed ^ 0x5EED)
        // Real account ids as keys (19-character strings), so the memory figure is what a server holds.
        let ids = (0..<drivers).map { _ in DriverID.random(using: &random) }
        let fleet = LiveFleet<DriverID>(
            ingest: IngestConfiguration(rateLimitBurst: 1_000),
            index: DriverIndexConfiguration(referenceLatitude: 60.2, maxAgeMilliseconds: 600_000))
        let start: Int64 = 1_750_000_000_000
        var points = driverPoints(count: drivers, seed: seed)
        let heapBefore = residentBytes()
        for chunk in stride(from: 0, to: drivers, by: 1000) {
            let batches = (chunk..<min(drivers, chunk + 1000)).map { i in
                (
                    driver: ids[i],
                    fixes: [LocationFix(coordinate: points[i], timeMilliseconds: start, accuracyMeters: 5)]
                )
            }
            _ = fleet.ingest(batches, now: start)
        }
        let footprint = fleet.memoryFootprint
        let heapAfter = residentBytes()

        // Every driver moves north-east a few metres a second; each batch carries one driver's next fixes.
        var work: [[(driver: DriverID, fixes: [LocationFix])]] = []
        for chunk in stride(from: 0, to: drivers, by: 1000) {
            work.append(
                (chunk..<min(drivers, chunk + 1000)).map { i in
                    let fixes = (1...fixesPerDriver).map { step in
                        points[i].latitude += 0.00003
                        return LocationFix(
                            coordinate: points[i], timeMilliseconds: start + Int64(step) * 1000,
                            accuracyMeters: 5, headingDegrees: 45)
                    }
                    return (driver: ids[i], fixes: fixes)
                })
        }
        let clock = ContinuousClock()
        let now = start + Int64(fixesPerDriver) * 1000
        let ingestTime = clock.measure {
            for batches in work { _ = fleet.ingest(batches, now: now) }
        }
        let ingested = drivers * fixesPerDriver
        precondition(fleet.acceptedCount == drivers + ingested, "the benchmark's fixes must all pass the rules")

        let queryPoints = Self.queryPoints(count: queries, seed: seed)
        var found = 0
        var fast: [Double] = []
        fast.reserveCapacity(queries)
        for point in queryPoints {
            let t = clock.now
            found &+= fleet.nearest(to: point, k: 10, now: now).count
            fast.append(microseconds(clock.now - t))
        }
        var slow: [Double] = []
        let scans = max(1, queries / 10)
        fleet.withIndex { index in
            for point in queryPoints.prefix(scans) {
                let t = clock.now
                found &+= index.nearestByScan(to: point, k: 10, now: now).count
                slow.append(microseconds(clock.now - t))
            }
        }
        precondition(found > 0, "the searches found no drivers")
        fast.sort()
        slow.sort()
        return Result(
            drivers: drivers,
            ingestBatchedPerSecond: Double(ingested) / seconds(ingestTime),
            nearest10MedianMicroseconds: fast[fast.count / 2],
            nearest10P99Microseconds: fast[fast.count * 99 / 100],
            bruteforceNearest10MedianMicroseconds: slow[slow.count / 2],
            bytesPerDriver: Double(footprint.heapBytes) / Double(max(1, footprint.drivers)),
            residentBytesPerDriver: heapBefore.flatMap { before in
                heapAfter.map { Double($0 - before) / Double(max(1, drivers)) }
            })
    }

    /// The drivers' starting points: uniform in a 22 x 28 km box over Helsinki (the same for the same seed, so
    /// other stores can be measured on them).
    public static func driverPoints(count: Int, seed: UInt64 = 1) -> [Coordinate] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            Coordinate(
                latitude: .random(in: 60.10...60.30, using: &random),
                longitude: .random(in: 24.70...25.20, using: &random))
        }
    }

    /// The query points of the nearest-10 searches, inside the drivers' box.
    public static func queryPoints(count: Int, seed: UInt64 = 1) -> [Coordinate] {
        var random = SplitMix64(seed: seed ^ 0x9E37)
        return (0..<count).map { _ in
            Coordinate(
                latitude: .random(in: 60.12...60.28, using: &random),
                longitude: .random(in: 24.72...25.18, using: &random))
        }
    }

    private static func seconds(_ d: Duration) -> Double { d.inSeconds }

    private static func microseconds(_ d: Duration) -> Double { seconds(d) * 1e6 }

    /// The process's resident set in bytes (Linux `/proc/self/statm`, second field, times the page size).
    private static func residentBytes() -> Int? {
        #if os(Linux)
            let fd = open("/proc/self/statm", O_RDONLY)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 128)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
            guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return nil
        #endif
    }
}
