import CabGeo
import CabOSM
import CabRouting

/// Feeds a `RoadNetworkBuilder` from OSM elements, as an `OSMElementHandler` for one pass over a file.
///
/// Nodes and ways go straight to the builder (which keeps only what routable ways need). Relations tagged
/// `type=restriction` whose restriction applies to a cab (`TravelProfile.restrictionValue`) become
/// `TurnRestriction`s when they have one `from` way, one `to` way and either one `via` node or one or more `via`
/// ways (in member order; the builder checks that they form a chain); malformed ones are counted and skipped.
public struct RoadImport: OSMElementHandler {
    /// The builder being fed.
    public private(set) var builder = RoadNetworkBuilder()
    /// The most junctions a map may have for turns to cost (`RoadNetworkBuilder.turnCostJunctionLimit`).
    public var turnCostJunctionLimit: Int {
        get { builder.turnCostJunctionLimit }
        set { builder.turnCostJunctionLimit = newValue }
    }
    /// The profile whose restriction keys apply.
    public let profile: TravelProfile
    /// What was skipped and why.
    public private(set) var notes = Notes()

    /// Counts of restriction relations this import could not use.
    public struct Notes: Sendable, Hashable {
        /// Restriction relations whose via members are ways (passed on when well formed; see
        /// `RoadNetworkBuilder.Report.brokenViaChains` for chains that do not join up).
        public var viaWayRestrictions = 0
        /// Restriction relations missing a from, via or to member, or with an unknown value.
        public var malformedRestrictions = 0
        /// Restriction relations that do not apply to a cab (other vehicle, `except=psv`, ...).
        public var otherVehicleRestrictions = 0
        /// Restriction relations passed to the builder.
        public var restrictions = 0
    }

    /// An import for `profile` (nil: `.taxi`; a `= .taxi` default argument was seen to build the profile without its later fields on Swift 6.3), stamping the graph with `sourceFingerprint` (see
    /// `MapFingerprint`).
    public init(profile: TravelProfile? = nil, sourceFingerprint: UInt64 = 0) {
        self.profile = profile ?? .taxi
        builder.sourceFingerprint = sourceFingerprint
    }

    /// Passes the node's position on, and the node as a barrier when it stops a cab or as a delay when passing it
    /// costs time (traffic signals, gates; read only when the reader decodes node tags).
    public mutating func handle(_ node: OSMNode) throws {
        builder.addNode(id: node.id, coordinate: node.coordinate)
        if !node.tags.isEmpty { builder.addNodeTags(id: node.id, tags: node.tags, profile: profile) }
    }

    /// Passes the way on (the builder drops ways without `highway`).
    public mutating func handle(_ way: OSMWay) throws {
        builder.addWay(id: way.id, nodeIDs: way.nodeIDs, tags: way.tags)
    }

    /// Turns a restriction relation into a `TurnRestriction`.
    public mutating func handle(_ relation: OSMRelation) throws {
        guard relation.tags["type"] == "restriction" else { return }
        guard let value = profile.restrictionValue(relation.tags) else {
            notes.otherVehicleRestrictions += 1
            return
        }
        let from = relation.members.filter { $0.role == "from" && $0.type == .way }
        let via = relation.members.filter { $0.role == "via" }
        let to = relation.members.filter { $0.role == "to" && $0.type == .way }
        let viaWays = via.filter { $0.type == .way }.map(\.ref)
        let restrictionVia: TurnRestriction.Via
        if !viaWays.isEmpty, viaWays.count == via.count {
            notes.viaWayRestrictions += 1
            restrictionVia = .ways(viaWays)
        } else if via.count == 1, via[0].type == .node {
            restrictionVia = .node(via[0].ref)
        } else {
            notes.malformedRestrictions += 1
            return
        }
        guard from.count == 1, to.count == 1,
            let restriction = TurnRestriction(
                restriction: value, fromWay: from[0].ref, via: restrictionVia, toWay: to[0].ref)
        else {
            notes.malformedRestrictions += 1
            return
        }
        notes.restrictions += 1
        builder.addRestriction(restriction)
    }

    /// Forgets the nodes and ways (once the graph is built; `notes` stay).
    public mutating func releaseElements() {
        builder = RoadNetworkBuilder()
    }

    /// Builds the graph.
    public func build() -> (graph: RoadGraph, report: RoadNetworkBuilder.Report) {
        builder.buildReporting(profile: profile)
    }
}
