import CabOSM

/// A handler that keeps every element it is given, in order.
struct ElementCollector: OSMElementHandler {
    var nodes: [OSMNode] = []
    var ways: [OSMWay] = []
    var relations: [OSMRelation] = []

    mutating func handle(_ node: OSMNode) throws { nodes.append(node) }
    mutating func handle(_ way: OSMWay) throws { ways.append(way) }
    mutating func handle(_ relation: OSMRelation) throws { relations.append(relation) }
}

/// A handler that only counts, for reads where the elements themselves do not matter.
struct ElementCounter: OSMElementHandler {
    var nodes = 0
    var ways = 0
    var relations = 0

    mutating func handle(_ node: OSMNode) throws { nodes += 1 }
    mutating func handle(_ way: OSMWay) throws { ways += 1 }
    mutating func handle(_ relation: OSMRelation) throws { relations += 1 }
}
