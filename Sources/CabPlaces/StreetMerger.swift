import CabGeo

/// Merges the OSM segments of one street into one result: segments with the same folded name whose bounding
/// boxes come within `joinDistanceMeters` of each other form one street (a long avenue split into 30 ways is
/// one answer; two "Koulukatu" in different towns stay two).
enum StreetMerger {
    /// How far apart two segments of a same-named street may be and still be one street.
    static let joinDistanceMeters = 150.0

    /// The merged streets; each keeps all its segments as `.area`/`.line` parts in `geometry`.
    /// - Complexity: O(k²) per name for k segments of that name.
    static func merge(_ segments: [PlaceRecord]) -> [PlaceRecord] {
        var byName: [String: [Int]] = [:]
        for (i, s) in segments.enumerated() { byName[TextFolding.folded(s.name), default: []].append(i) }
        var result: [PlaceRecord] = []
        for key in byName.keys.sorted() {
            let members = byName[key]!  // the key came from the dictionary itself
            let boxes = members.map {
                BoundingBox(enclosing: segments[$0].geometry.allPoints)!.expanded(byMeters: joinDistanceMeters / 2)
            }  // every street record has at least one point (the builder drops empty geometry)
            var parent = Array(0..<members.count)
            func root(_ i: Int) -> Int {
                var i = i
                while parent[i] != i {
                    parent[i] = parent[parent[i]]
                    i = parent[i]
                }
                return i
            }
            for i in 0..<members.count {
                for j in (i + 1)..<members.count where boxes[i].intersects(boxes[j]) {
                    parent[root(i)] = root(j)
                }
            }
            var clusters: [Int: [Int]] = [:]
            for i in 0..<members.count { clusters[root(i), default: []].append(members[i]) }
            for cluster in clusters.values { result.append(combine(cluster.map { segments[$0] })) }
        }
        return result
    }

    static func combine(_ parts: [PlaceRecord]) -> PlaceRecord {
        let sorted = parts.sorted { ($0.source.code, $0.source.id) < ($1.source.code, $1.source.id) }
        var merged = sorted.first { $0.source.type == .way } ?? sorted[0]
        var names = merged.names
        for part in sorted { for n in part.names where !names.contains(n) { names.append(n) } }
        merged.names = names
        merged.geometry = .area(sorted.flatMap { $0.geometry.parts })
        merged.shapes = sorted.flatMap(\.shapes)
        if sorted.contains(where: { $0.category == .street }) { merged.category = .street }
        var lengthMeters = 0.0
        for line in merged.geometry.parts where line.count > 1 {
            for i in 1..<line.count { lengthMeters += line[i - 1].distanceMeters(to: line[i]) }
        }
        merged.signals = PlaceImportance.Signals(
            kind: sorted.map(\.signals.kind).max() ?? 0, hasWiki: sorted.contains { $0.signals.hasWiki },
            languages: sorted.map(\.signals.languages).max() ?? 1, streetLengthMeters: lengthMeters)
        for part in sorted {
            for (language, name) in part.localizedNames
            where !merged.localizedNames.contains(where: { $0.language == language }) {
                merged.localizedNames.append((language, name))
            }
        }
        merged.localizedNames.sort { $0.language < $1.language }
        merged.coordinate = pointNearestCenter(of: merged.geometry.parts)
        return merged
    }

    /// The point on the street closest to the centre of its bounding box: a pin on the street itself.
    static func pointNearestCenter(of parts: [[Coordinate]]) -> Coordinate {
        let all = parts.flatMap { $0 }
        let center = BoundingBox(enclosing: all)!.center  // parts are non-empty (see merge)
        let projection = LocalProjection(referenceLatitude: center.latitude)
        var best = all[0]
        var bestDistance = Double.infinity
        for line in parts {
            if line.count == 1, line[0].distanceMeters(to: center) < bestDistance {
                best = line[0]
                bestDistance = line[0].distanceMeters(to: center)
            }
            for i in 1..<max(line.count, 1) {
                let hit = projection.project(center, ontoSegmentFrom: line[i - 1], to: line[i])
                if hit.distanceMeters < bestDistance {
                    best = hit.point
                    bestDistance = hit.distanceMeters
                }
            }
        }
        return best
    }
}

extension BoundingBox {
    func intersects(_ other: BoundingBox) -> Bool {
        southWest.latitude <= other.northEast.latitude && other.southWest.latitude <= northEast.latitude
            && southWest.longitude <= other.northEast.longitude && other.southWest.longitude <= northEast.longitude
    }
}
