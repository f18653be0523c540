import CabGeo
import CabPlaces
import CabSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Query timings on one index (`cab bench places` prints them).
public struct PlaceBenchmarkResult: Sendable, Codable, Equatable {
    /// Places in the index.
    public var places: Int
    /// Forward queries run: every prefix of each sampled name, typed character by character.
    public var forwardQueries: Int
    /// Median and 99th percentile forward query time, milliseconds.
    public var forwardMedianMilliseconds: Double, forwardP99Milliseconds: Double
    /// The same in CPU time of the querying thread (`CLOCK_THREAD_CPUTIME_ID`): what the query costs, without
    /// the time the thread waited for a core (on a shared machine the wall-clock p99 is mostly that wait).
    public var forwardCPUMedianMilliseconds: Double, forwardCPUP99Milliseconds: Double
    /// Forward queries whose first page held the name being typed, once fully typed (a sanity check).
    public var forwardFoundShare: Double
    /// Reverse queries run.
    public var reverseQueries: Int
    /// Median and 99th percentile reverse query time, milliseconds.
    public var reverseMedianMilliseconds: Double, reverseP99Milliseconds: Double
    /// Reverse queries that answered something.
    public var reverseAnsweredShare: Double
}

/// Benchmarks for issue 4: typed-prefix replay and reverse points on a given index, and a synthetic
/// million-place index for build time and size.
public enum PlaceBenchmark {
    /// Replays `names` names from the index character by character (each prefix is one query, with `near` a
    /// point up to 2 km from the place), and runs `reversePoints` reverse queries at places jittered by up
    /// to 100 m. Seeded: the same index and seed run the same queries.
    public static func measure(index: PlaceIndex, names: Int = 1000, reversePoints: Int = 1000, seed: UInt64 = 4)
        throws(PlacesError) -> PlaceBenchmarkResult
    {
        var random = SplitMix64(seed: seed)
        let samples = try index.withConnection { connection throws(PlacesError) -> [(String, Coordinate)] in
            do throws(SQLiteError) {
                let count = try connection.database.query("SELECT count(*) FROM place") { $0.int(0) }.first ?? 0
                var picked: [(String, Coordinate)] = []
                for _ in 0..<max(names, reversePoints) where count > 0 {
                    if let row = try connection.place(id: Int(random.next() % UInt64(count)) + 1) {
                        picked.append((row.name, row.coordinate))
                    }
                }
                return picked
            } catch {
                throw PlaceIndex.storageError(error)
            }
        }
        let places = try index.withConnection { connection throws(PlacesError) -> Int in
            do throws(SQLiteError) {
                return try connection.database.query("SELECT count(*) FROM place") { $0.int(0) }.first ?? 0
            } catch {
                throw PlaceIndex.storageError(error)
            }
        }
        let clock = ContinuousClock()
        var forward: [Duration] = []
        var forwardCPU: [Duration] = []
        var found = 0
        for (name, at) in samples.prefix(names) {
            let near = at.offset(northMeters: random.uniform(-2000, 2000), eastMeters: random.uniform(-2000, 2000))
            let typed = Array(name.prefix(PlaceIndex.maximumQueryLength))
            for length in 1...max(typed.count, 1) where !typed.isEmpty {
                let text = String(typed[0..<length])
                let start = clock.now
                let cpuStart = threadCPUTime()
                let results = try index.search(text, near: near, limit: 10)
                forwardCPU.append(threadCPUTime() - cpuStart)
                forward.append(clock.now - start)
                if length == typed.count, results.contains(where: { $0.name == name }) { found += 1 }
            }
        }
        var reverse: [Duration] = []
        var answered = 0
        for (_, at) in samples.prefix(reversePoints) {
            let point = at.offset(northMeters: random.uniform(-100, 100), eastMeters: random.uniform(-100, 100))
            let start = clock.now
            let hit = try index.reverse(at: point)
            reverse.append(clock.now - start)
            if hit != nil { answered += 1 }
        }
        return PlaceBenchmarkResult(
            places: places, forwardQueries: forward.count, forwardMedianMilliseconds: percentile(forward, 0.5),
            forwardP99Milliseconds: percentile(forward, 0.99),
            forwardCPUMedianMilliseconds: percentile(forwardCPU, 0.5),
            forwardCPUP99Milliseconds: percentile(forwardCPU, 0.99),
            forwardFoundShare: Double(found) / Double(max(1, min(names, samples.count))),
            reverseQueries: reverse.count, reverseMedianMilliseconds: percentile(reverse, 0.5),
            reverseP99Milliseconds: percentile(reverse, 0.99),
            reverseAnsweredShare: Double(answered) / Double(max(1, reverse.count)))
    }

    /// Builds a synthetic city of about `places` places at `path`: a grid of streets every 100 m (each grid line
    /// split into differently named 2.5 km streets of 100 m segments, to be merged), houses numbered along
    /// them, and named POIs of common categories scattered between. Names are generated from syllables, so
    /// prefixes and typos behave like a real vocabulary.
    public static func buildSynthetic(path: String, places: Int = 1_000_000, seed: UInt64 = 7)
        throws(PlacesError) -> PlaceIndexBuildReport
    {
        var random = SplitMix64(seed: seed)
        let builder = PlaceIndexBuilder(path: path)
        // Per 100 m segment: one segment feature, ~5 addresses, ~3 POIs; streets are 25 segments long.
        let segments = max(4, places / 8)
        let linesPerAxis = max(2, Int(Double(segments / 2).squareRoot()))
        let origin = Coordinate(latitude: 60.0, longitude: 24.5)
        let spacing = 100.0
        var osmID: Int64 = 0
        func nextID() -> Int64 {
            osmID += 1
            return osmID
        }
        let categories = [
            ("amenity", "cafe"), ("amenity", "restaurant"), ("tourism", "hotel"), ("shop", "supermarket"),
            ("amenity", "pharmacy"), ("shop", "bakery"), ("amenity", "bar"), ("amenity", "bank"),
            ("tourism", "museum"), ("amenity", "school"), ("shop", "clothes"), ("amenity", "fast_food"),
        ]
        for axis in 0..<2 {
            for line in 0..<linesPerAxis {
                var streetName = ""
                for step in 0..<linesPerAxis {
                    if step % 25 == 0 { streetName = random.streetName() }
                    func at(_ along: Double, _ across: Double) -> Coordinate {
                        axis == 0
                            ? origin.offset(northMeters: Double(line) * spacing + across, eastMeters: along)
                            : origin.offset(northMeters: along, eastMeters: Double(line) * spacing + across)
                    }
                    let a = at(Double(step) * spacing, 0)
                    let b = at(Double(step + 1) * spacing, 0)
                    builder.add(
                        PlaceFeature(
                            source: PlaceSourceID(.way, nextID()),
                            tags: ["highway": "residential", "name": streetName],
                            geometry: .line([a, b])))
                    for house in 0..<5 {
                        let number = (step % 25) * 6 + house + 1
                        let side = number % 2 == 0 ? 12.0 : -12.0
                        builder.add(
                            PlaceFeature(
                                source: PlaceSourceID(.node, nextID()),
                                tags: ["addr:street": streetName, "addr:housenumber": String(number)],
                                geometry: .point(at(Double(step) * spacing + Double(house) * 18 + 9, side))))
                    }
                    for poi in 0..<3 {
                        let (key, value) = categories[Int(random.next() % UInt64(categories.count))]
                        builder.add(
                            PlaceFeature(
                                source: PlaceSourceID(.node, nextID()), tags: [key: value, "name": random.placeName()],
                                geometry: .point(
                                    at(Double(step) * spacing + Double(poi) * 30 + 15, random.uniform(20, 80)))))
                    }
                }
            }
        }
        return try builder.finish()
    }

    /// CPU time the calling thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
    static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    static func percentile(_ durations: [Duration], _ p: Double) -> Double {
        guard !durations.isEmpty else { return 0 }
        let sorted = durations.sorted()
        let d = sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15
    }
}

extension Coordinate {
    /// The point `northMeters` north and `eastMeters` east (flat-earth offset, fine for a few km).
    func offset(northMeters: Double, eastMeters: Double) -> Coordinate {
        let projection = LocalProjection(referenceLatitude: latitude)
        return Coordinate(
            latitude: latitude + northMeters / projection.metersPerDegreeLatitude,
            longitude: longitude + eastMeters / projection.metersPerDegreeLongitude)
    }
}

extension SplitMix64 {
    static let syllables = [
        "ka", "le", "va", "mi", "ko", "ta", "ri", "so", "lu", "ne", "pa", "hi", "ro", "ve", "tu", "ma", "si", "jo",
        "la", "ke", "nu", "sa", "po", "ti", "hel", "mar", "kel", "tor", "vil", "san",
    ]

    mutating func stem(_ count: Int) -> String {
        var word = ""
        for _ in 0..<count { word += Self.syllables[Int(next() % UInt64(Self.syllables.count))] }
        return word.prefix(1).uppercased() + word.dropFirst()
    }

    mutating func streetName() -> String {
        let suffixes = ["nkatu", "ntie", "nkuja", "npolku", "gatan", "nranta"]
        return stem(3) + suffixes[Int(next() % UInt64(suffixes.count))]
    }

    mutating func placeName() -> String {
        next() % 3 == 0 ? stem(2) + " " + stem(3) : stem(3)
    }
}
