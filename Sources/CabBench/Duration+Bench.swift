/// A `Duration` as the benchmarks print it: one conversion instead of one per benchmark.
extension Duration {
    /// Seconds, as a floating-point number.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
    /// Milliseconds, as a floating-point number.
    var inMilliseconds: Double { inSeconds * 1e3 }
    /// Microseconds, as a floating-point number.
    var inMicroseconds: Double { inSeconds * 1e6 }
}
