/// Where the distance and duration of a final fare come from.
public enum FareBasis: String, Hashable, Sendable, Codable {
    /// The driver's stored fixes from pickup to completion.
    case trail
    /// The route priced at booking (the driver sent fewer than two fixes during the ride).
    case bookedRoute = "booked_route"
}

/// What a completed trip's final fare was computed from: the figures and their basis, and the driven trail.
public struct TripReceipt: Hashable, Sendable, Codable {
    /// Metres charged.
    public var distanceMeters: Int
    /// Seconds charged.
    public var durationSeconds: Int
    /// Where the figures come from.
    public var basis: FareBasis
    /// The driven trail as an encoded polyline (precision 5), thinned to at most `maximumTrailPoints`; nil
    /// without a trail.
    public var trailPolyline: String?

    /// Most points kept in `trailPolyline`.
    public static let maximumTrailPoints = 500

    /// Creates a receipt.
    public init(distanceMeters: Int, durationSeconds: Int, basis: FareBasis, trailPolyline: String?) {
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.basis = basis
        self.trailPolyline = trailPolyline
    }

    enum CodingKeys: String, CodingKey {
        case basis
        case distanceMeters = "distance_m"
        case durationSeconds = "duration_s"
        case trailPolyline = "trail_polyline"
    }
}

/// A rider's rating of a completed trip: 1 to 5 stars and an optional comment.
public struct TripRating: Hashable, Sendable, Codable {
    /// 1 to 5.
    public var stars: Int
    /// The rider's words, if any.
    public var comment: String?
    /// When it was given.
    public var at: Instant

    /// Stars allowed.
    public static let starRange = 1...5
    /// Longest comment kept, in UTF-8 bytes.
    public static let maximumCommentBytes = 1_000

    /// A rating; throws `.invalidValue` for stars outside 1...5 or a comment that is too long.
    public init(stars: Int, comment: String?, at: Instant) throws(CoreError) {
        guard Self.starRange.contains(stars) else {
            throw CoreError(.invalidValue, "Give 1 to 5 stars; \(stars) is out of range.")
        }
        if let comment, comment.utf8.count > Self.maximumCommentBytes {
            throw CoreError(.invalidValue, "The comment is longer than \(Self.maximumCommentBytes) bytes; shorten it.")
        }
        self.stars = stars
        self.comment = comment
        self.at = at
    }
}
