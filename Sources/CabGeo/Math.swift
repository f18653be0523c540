#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The C math library, named so that callers in this module need not import the platform module.
@inline(__always) func sine(_ x: Double) -> Double { sin(x) }
@inline(__always) func cosine(_ x: Double) -> Double { cos(x) }
@inline(__always) func arcsine(_ x: Double) -> Double { asin(x) }
@inline(__always) func arcTangent2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inline(__always) func squareRoot(_ x: Double) -> Double { x.squareRoot() }
