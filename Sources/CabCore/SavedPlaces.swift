import CabGeo

/// A place a rider saved under a label of their own ("Home", "Work", "Mum's"), offered before they type.
public struct SavedPlace: Hashable, Sendable, Codable {
    /// The label as the rider wrote it ("Home"); unique per rider regardless of case.
    public var label: String
    /// What the place is called ("Mannerheimintie 20", "Kiasma").
    public var name: String
    /// Where it is.
    public var coordinate: Coordinate
    /// The address line shown under the name; empty when unknown.
    public var address: String
    /// When it was last saved.
    public var updatedAt: Instant

    /// The longest label, in characters.
    public static let maximumLabelLength = 40
    /// The longest name or address, in characters.
    public static let maximumTextLength = 200
    /// The most places one rider may save.
    public static let maximumPerRider = 20
    /// Labels offered first, in this order.
    public static let leadingLabels = ["home", "work"]

    /// Creates a saved place after checking it (`validated`).
    /// - Throws: `CoreError.invalidValue` for an empty or overlong label or name, control characters, an
    ///   overlong address or an invalid coordinate.
    public init(label: String, name: String, coordinate: Coordinate, address: String = "", updatedAt: Instant)
        throws(CoreError)
    {
        self.label = try Self.checked(label, "label", maximum: Self.maximumLabelLength, required: true)
        self.name = try Self.checked(name, "name", maximum: Self.maximumTextLength, required: true)
        self.address = try Self.checked(address, "address", maximum: Self.maximumTextLength, required: false)
        guard coordinate.isValid else {
            throw CoreError(
                .invalidValue, "The position must be a valid latitude (-90...90) and longitude (-180...180).")
        }
        self.coordinate = coordinate
        self.updatedAt = updatedAt
    }

    /// The key labels are unique under: "Home" and "home" are one place.
    public var labelKey: String { Self.key(label) }

    /// The key of `label` (trimmed, lower case).
    public static func key(_ label: String) -> String { trimmed(label).lowercased() }

    /// `places` in the order a rider is offered them: "Home", then "Work", then the rest by label.
    public static func ordered(_ places: [SavedPlace]) -> [SavedPlace] {
        places.sorted { a, b in
            let ra = leadingLabels.firstIndex(of: a.labelKey) ?? leadingLabels.count
            let rb = leadingLabels.firstIndex(of: b.labelKey) ?? leadingLabels.count
            return (ra, a.labelKey, a.label) < (rb, b.labelKey, b.label)
        }
    }

    static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }

    static func checked(_ text: String, _ field: String, maximum: Int, required: Bool) throws(CoreError) -> String {
        let value = trimmed(text)
        if required, value.isEmpty { throw CoreError(.invalidValue, "The \(field) is empty; give a non-empty text.") }
        guard value.count <= maximum else {
            throw CoreError(.invalidValue, "The \(field) is longer than \(maximum) characters; shorten it.")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw CoreError(.invalidValue, "The \(field) contains control characters; remove them.")
        }
        return value
    }
}

/// A destination the rider went to recently, from their bookings.
public struct RecentDestination: Hashable, Sendable {
    /// The name given at booking ("Kiasma"); nil when the booking named none.
    public var name: String?
    /// Where the trip ended.
    public var coordinate: Coordinate
    /// When that booking was made.
    public var bookedAt: Instant

    /// Creates a recent destination.
    public init(name: String?, coordinate: Coordinate, bookedAt: Instant) {
        self.name = name
        self.coordinate = coordinate
        self.bookedAt = bookedAt
    }

    /// Destinations closer than this to a newer one (or to a saved place) are the same place.
    public static let samePlaceMeters = 50.0

    /// The last `limit` distinct destinations of `bookings` (newest first), leaving out those within
    /// `samePlaceMeters` of a newer one or of one of `saved` (already offered).
    public static func distinct(from bookings: [Booking], saved: [SavedPlace] = [], limit: Int) -> [RecentDestination] {
        var result: [RecentDestination] = []
        for booking in bookings.sorted(by: { $0.createdAt > $1.createdAt }) where result.count < limit {
            let point = booking.dropoff
            let known =
                result.contains { $0.coordinate.distanceMeters(to: point) < samePlaceMeters }
                || saved.contains { $0.coordinate.distanceMeters(to: point) < samePlaceMeters }
            if !known {
                result.append(
                    RecentDestination(name: booking.dropoffName, coordinate: point, bookedAt: booking.createdAt))
            }
        }
        return result
    }
}

/// A rider's saved places (implemented by `CabStore`). Methods block until done (a write returns once it is
/// durable).
public protocol SavedPlaceRepository: Sendable {
    /// The rider's saved places, in `SavedPlace.ordered` order.
    func savedPlaces(of rider: RiderID) throws -> [SavedPlace]
    /// Stores `place` for `rider`, replacing the one with the same label (any case).
    /// - Returns: true when the label was new.
    /// - Throws: `CoreError.invalidValue` when the label is new and the rider already has
    ///   `SavedPlace.maximumPerRider` places.
    func save(_ place: SavedPlace, for rider: RiderID) throws -> Bool
    /// Removes the rider's place labelled `label` (any case).
    /// - Returns: true when there was one.
    func removeSavedPlace(labeled label: String, for rider: RiderID) throws -> Bool
}
