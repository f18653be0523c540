/// A turn restriction: from a way, through one via node or a chain of via ways, onto a way.
public struct TurnRestriction: Sendable, Hashable {
    /// Whether the turn is forbidden (`no_*`) or the only one allowed (`only_*`).
    public enum Kind: Sendable, Hashable {
        /// `no_left_turn`, `no_u_turn`, ...: the turn from `fromWay` onto `toWay` is forbidden.
        case no
        /// `only_straight_on`, ...: after arriving along `fromWay`, `toWay` is the only way out.
        case only
    }

    /// Where the restricted manoeuvre passes between `fromWay` and `toWay`.
    public enum Via: Sendable, Hashable {
        /// One junction: the car turns from `fromWay` straight onto `toWay` there.
        case node(Int64)
        /// A chain of ways driven end to end, in the relation's member order: `fromWay` ends where the first
        /// one starts (or ends), each next one continues where the previous one stops, and `toWay` leaves the
        /// end of the last one.
        case ways([Int64])
    }

    /// Forbidden or mandatory.
    public var kind: Kind
    /// The way the car arrives along.
    public var fromWay: Int64
    /// The node or ways between `fromWay` and `toWay`.
    public var via: Via
    /// The way the manoeuvre leads onto.
    public var toWay: Int64

    /// The via node, when the restriction goes through one.
    public var viaNode: Int64? {
        if case .node(let node) = via { return node }
        return nil
    }

    /// Creates a restriction through one via node.
    public init(kind: Kind, fromWay: Int64, viaNode: Int64, toWay: Int64) {
        self.init(kind: kind, fromWay: fromWay, via: .node(viaNode), toWay: toWay)
    }

    /// Creates a restriction.
    public init(kind: Kind, fromWay: Int64, via: Via, toWay: Int64) {
        self.kind = kind
        self.fromWay = fromWay
        self.via = via
        self.toWay = toWay
    }

    /// Reads an OSM `restriction` value (`no_left_turn`, `only_straight_on`, ...); nil for anything else.
    public init?(restriction value: String, fromWay: Int64, viaNode: Int64, toWay: Int64) {
        self.init(restriction: value, fromWay: fromWay, via: .node(viaNode), toWay: toWay)
    }

    /// Reads an OSM `restriction` value for a restriction through `via`; nil for values other than `no_*` and
    /// `only_*`, and for an empty via chain.
    public init?(restriction value: String, fromWay: Int64, via: Via, toWay: Int64) {
        if case .ways(let ways) = via, ways.isEmpty { return nil }
        if value.hasPrefix("no_") {
            kind = .no
        } else if value.hasPrefix("only_") {
            kind = .only
        } else {
            return nil
        }
        self.fromWay = fromWay
        self.via = via
        self.toWay = toWay
    }
}
