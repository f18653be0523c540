import CabGeo

/// Finds the taxi rank (or, failing one, the platform) at a big venue, at build time.
struct PickupFinder {
    /// Categories whose places get a pickup point: venues big enough that "the entrance" is ambiguous.
    static let venueLabels: Set<String> = [
        "station", "airport", "heliport", "bus station", "ferry terminal", "stadium", "shopping centre",
        "department store", "hospital", "university", "casino", "theatre", "concert hall", "museum", "marina",
    ]
    /// How far from a venue's pin (or outside its outline) a taxi rank may be and still be its pickup point.
    static let taxiRadiusMeters = 250.0
    /// The same for a platform, used only when no taxi rank is near.
    static let platformRadiusMeters = 150.0

    /// A possible pickup spot: a taxi rank or a platform, named or not.
    struct Candidate {
        var name: String?
        var street: String?
        var coordinate: Coordinate
        var isTaxi: Bool
    }

    private var candidates: [Candidate] = []

    /// Remembers `feature` when it is a taxi rank or a platform.
    mutating func consider(_ feature: PlaceFeature) {
        let tags = feature.tags
        let isTaxi = tags["amenity"] == "taxi"
        guard isTaxi || tags["public_transport"] == "platform" else { return }
        candidates.append(
            Candidate(
                name: tags["name"], street: tags["addr:street"], coordinate: feature.geometry.representativePoint,
                isTaxi: isTaxi))
    }

    /// The pickup point of `record`, if it is a venue with a taxi rank (or platform) close by. `nearestStreet`
    /// names an unnamed rank after its street.
    func pickup(for record: PlaceRecord, nearestStreet: (Coordinate) -> String?) -> PlacePickupPoint? {
        guard record.kind == .poi || record.kind == .area, Self.venueLabels.contains(record.category.label),
            !candidates.isEmpty
        else { return nil }
        let rings = record.geometry.parts.filter { $0.count >= 3 }
        func distance(_ c: Coordinate) -> Double {
            if rings.contains(where: { $0.ringContains(c) }) { return 0 }
            return c.distanceMeters(to: record.coordinate)
        }
        for isTaxi in [true, false] {
            let radius = isTaxi ? Self.taxiRadiusMeters : Self.platformRadiusMeters
            let best = candidates.filter { $0.isTaxi == isTaxi }.map { ($0, distance($0.coordinate)) }
                .filter { $0.1 <= radius }.min { $0.1 < $1.1 }
            guard let (candidate, _) = best else { continue }
            let kind = isTaxi ? "taxi" : "platform"
            var name = candidate.name ?? (isTaxi ? "Taxi rank" : "Platform")
            if candidate.name == nil, let street = candidate.street ?? nearestStreet(candidate.coordinate) {
                name += ", " + street
            }
            return PlacePickupPoint(name: name, coordinate: candidate.coordinate, kind: kind)
        }
        return nil
    }
}
