/// A turn restriction through one via node: from a way, at a node, onto a way.
public struct TurnRestriction: Sendable, Hashable {
    /// Whether the turn is forbidden (`no_*`) or the only one allowed (`only_*`).
    public enum Kind: Sendable, Hashable {
        /// `no_left_turn`, `no_u_turn`, ...: the turn from `fromWay` onto `toWay` is forbidden.
        case no
        /// `only_straight_on`, ...: after arriving along `fromWay`, `toWay` is the only way out.
        case only
    }

    /// Forbidden or mandatory.
    public var kind: Kind
    /// The way the car arrives along.
    public var fromWay: Int64
    /// The node where it turns.
    public var viaNode: Int64
    /// The way the turn leads onto.
    public var toWay: Int64

    /// Creates a restriction.
    public init(kind: Kind, fromWay: Int64, viaNode: Int64, toWay: Int64) {
        self.kind = kind
        self.fromWay = fromWay
        self.viaNode = viaNode
        self.toWay = toWay
    }

    /// Reads an OSM `restriction` value (`no_left_turn`, `only_straight_on`, ...); nil for anything else.
    public init?(restriction value: String, fromWay: Int64, viaNode: Int64, toWay: Int64) {
        if value.hasPrefix("no_") {
            kind = .no
        } else if value.hasPrefix("only_") {
            kind = .only
        } else {
            return nil
        }
        self.fromWay = fromWay
        self.viaNode = viaNode
        self.toWay = toWay
    }
}
