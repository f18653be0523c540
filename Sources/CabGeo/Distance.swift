/// Mean Earth radius in metres (IUGG), used by every distance in SwiftCab.
public let earthRadiusMeters = 6_371_008.8

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inline(__always) func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

extension Coordinate {
    /// Great-circle distance in metres (haversine).
    public func distanceMeters(to other: Coordinate) -> Double {
        let lat1 = radians(latitude)
        let lat2 = radians(other.latitude)
        let dLat = lat2 - lat1
        let dLon = radians(other.longitude - longitude)
        let a = sinHalfSquared(dLat) + cosine(lat1) * cosine(lat2) * sinHalfSquared(dLon)
        return 2 * earthRadiusMeters * arcsine(squareRoot(min(1, a)))
    }

    /// Initial bearing towards `other`, degrees clockwise from north in 0 ..< 360.
    public func bearingDegrees(to other: Coordinate) -> Double {
        let lat1 = radians(latitude)
        let lat2 = radians(other.latitude)
        let dLon = radians(other.longitude - longitude)
        let y = sine(dLon) * cosine(lat2)
        let x = cosine(lat1) * sine(lat2) - sine(lat1) * cosine(lat2) * cosine(dLon)
        let b = degrees(arcTangent2(y, x))
        return b < 0 ? b + 360 : b
    }
}

/// The smallest angle between two bearings, in degrees 0 ... 180.
public func bearingDifferenceDegrees(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 360)
    if d < 0 { d += 360 }
    return d > 180 ? 360 - d : d
}

@inline(__always) private func sinHalfSquared(_ x: Double) -> Double {
    let s = sine(x / 2)
    return s * s
}
