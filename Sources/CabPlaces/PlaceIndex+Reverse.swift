import CabGeo
import CabSQLite

extension PlaceIndex {
    /// How close a POI or address must be to answer a reverse query: a tap lands within a few metres of what
    /// the rider means, and 40 m covers a building's width without naming the neighbour across the street.
    public static let reversePlaceRadiusMeters = 40.0
    /// The default search radius for the nearest named street when no POI or address is at the spot: 150 m
    /// is half a city block; beyond that "nearest street" stops describing the point.
    public static let reverseStreetRadiusMeters = 150.0

    /// The name a person would give the point: the POI or address at the spot (within
    /// `reversePlaceRadiusMeters`; inside a building counts as 10 m, so a POI pin right at the tap beats the
    /// building around it; a POI beats an address up to 15 m nearer), else a named park or square containing
    /// it, else the nearest named street within `maxDistanceMeters`. Far from all data: nil.
    ///
    /// The result's `distanceMeters` is from `point` to the place's shape; a street's coordinate is the point on
    /// the street nearest to `point`.
    /// `languages` choose the name shown, as in `search`.
    /// - Throws: `PlacesError.invalidCoordinate` for an invalid point or a radius outside 1 ... 5,000 m.
    public func reverse(
        at point: Coordinate, maxDistanceMeters: Double = reverseStreetRadiusMeters, languages: [String] = []
    ) throws(PlacesError) -> PlaceResult? {
        guard point.isValid else {
            throw PlacesError(.invalidCoordinate, "The point must be a valid latitude and longitude.")
        }
        guard maxDistanceMeters.isFinite, (1...5000).contains(maxDistanceMeters) else {
            throw PlacesError(.invalidCoordinate, "The reverse radius must be between 1 and 5000 metres.")
        }
        return try withConnection { connection throws(PlacesError) -> PlaceResult? in
            do throws(SQLiteError) {
                return try ReverseSearch(point: point, maxDistanceMeters: maxDistanceMeters, connection: connection)
                    .run(languages: languages)
            } catch {
                throw Self.storageError(error)
            }
        }
    }
}

/// One reverse query: an R*Tree window around the point, exact distances to each shape, then the rules above.
struct ReverseSearch {
    let point: Coordinate
    let maxDistanceMeters: Double
    let connection: PlaceConnection
    let projection: LocalProjection

    /// An address loses to a POI unless it is this much nearer.
    static let addressPenaltyMeters = 15.0
    /// Being inside a building or area counts as this distance: a POI pin within it of the tap (a cafe inside
    /// a named office block) is the more specific answer; anywhere else in the building, the building is.
    static let insideDistanceMeters = 10.0

    init(point: Coordinate, maxDistanceMeters: Double, connection: PlaceConnection) {
        self.point = point
        self.maxDistanceMeters = maxDistanceMeters
        self.connection = connection
        projection = LocalProjection(referenceLatitude: point.latitude)
    }

    struct Hit {
        var placeID: Int
        var kind: PlaceKind
        var distanceMeters: Double
        var nearestPoint: Coordinate
        /// Squared-degree area of the ring containing the point (smaller rings are more specific); 0 otherwise.
        var containingArea: Double
    }

    /// Two windows: first the POI radius alone (most taps in a city end there, after a few dozen shapes), then,
    /// only when nothing is at the spot, the street radius.
    func run(languages: [String] = []) throws(SQLiteError) -> PlaceResult? {
        let placeRadius = min(PlaceIndex.reversePlaceRadiusMeters, maxDistanceMeters)
        var best = Best()
        try scan(radiusMeters: placeRadius, placeRadius: placeRadius, into: &best)
        if best.place == nil, maxDistanceMeters > placeRadius {
            try scan(radiusMeters: maxDistanceMeters, placeRadius: placeRadius, into: &best)
        }
        guard let chosen = best.place ?? best.area ?? best.street, let row = try connection.place(id: chosen.placeID)
        else { return nil }
        var result = row.result(distanceFrom: nil, languages: languages)
        result.distanceMeters = chosen.distanceMeters
        if chosen.kind == .street { result.coordinate = chosen.nearestPoint }
        return result
    }

    struct Best {
        var place: Hit?
        var area: Hit?
        var street: Hit?
    }

    private func scan(radiusMeters: Double, placeRadius: Double, into best: inout Best) throws(SQLiteError) {
        let window = BoundingBox(southWest: point, northEast: point).expanded(byMeters: radiusMeters)
        let statement = connection.shapes
        statement.reset()
        try statement.bind([
            window.southWest.latitude, window.northEast.latitude, window.southWest.longitude,
            window.northEast.longitude,
        ])
        while try statement.step() {
            let row = statement.row
            let kind = PlaceSchema.kind(code: row.int(2))
            let role = PlaceSchema.Role(rawValue: row.int(1)) ?? .point
            let hit = measure(PlaceSchema.decode(row.blob(3)), role: role, placeID: row.int(0), kind: kind)
            switch kind {
            case .poi, .address:
                guard hit.distanceMeters <= placeRadius else { continue }
                if let current = best.place {
                    let smallerContainer =
                        hit.distanceMeters == 0 && current.distanceMeters == 0
                        && hit.containingArea < current.containingArea && hit.kind == current.kind
                    guard Self.effectiveDistance(hit) < Self.effectiveDistance(current) || smallerContainer
                    else { continue }
                }
                best.place = hit
            case .area:
                guard hit.distanceMeters == 0 else { continue }
                if let current = best.area, current.containingArea <= hit.containingArea { continue }
                best.area = hit
            case .street:
                guard hit.distanceMeters <= maxDistanceMeters else { continue }
                if let current = best.street, current.distanceMeters <= hit.distanceMeters { continue }
                best.street = hit
            }
        }
    }

    /// The distance used to choose among POIs and addresses (see `addressPenaltyMeters`, `insideDistanceMeters`).
    static func effectiveDistance(_ hit: Hit) -> Double {
        (hit.containingArea > 0 ? insideDistanceMeters : hit.distanceMeters)
            + (hit.kind == .address ? addressPenaltyMeters : 0)
    }

    /// Distance from the point to a shape (0 inside a polygon) and the nearest point on it.
    func measure(_ points: [Coordinate], role: PlaceSchema.Role, placeID: Int, kind: PlaceKind) -> Hit {
        var hit = Hit(placeID: placeID, kind: kind, distanceMeters: .infinity, nearestPoint: point, containingArea: 0)
        guard let first = points.first else { return hit }
        if points.count == 1 || role == .point {
            hit.distanceMeters = point.distanceMeters(to: first)
            hit.nearestPoint = first
            return hit
        }
        var ring = points
        if role == .polygon, ring.first != ring.last { ring.append(first) }  // clipped: close it
        for i in 1..<ring.count {
            let projected = projection.project(point, ontoSegmentFrom: ring[i - 1], to: ring[i])
            if projected.distanceMeters < hit.distanceMeters {
                hit.distanceMeters = projected.distanceMeters
                hit.nearestPoint = projected.point
            }
        }
        if role == .polygon, ring.ringContains(point) {
            hit.distanceMeters = 0
            hit.nearestPoint = point
            hit.containingArea = PlaceGeometry.areaSquareDegrees(ring)
        }
        return hit
    }
}
