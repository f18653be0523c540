/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator, so that synthetic cities, benchmarks and
/// randomised tests replay exactly. Not for secrets (tokens come from the OS's random source).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that always yields the same sequence for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in 0 ..< 1.
    public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A uniform value in `low` ..< `high`.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * nextDouble() }
}
