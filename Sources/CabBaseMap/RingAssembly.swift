import CabGeo

/// Joins the member ways of a multipolygon into rings and sorts holes into their outer rings.
public enum RingAssembly {
    /// Joins `pieces` (node sequences) end to end into rings: a piece whose end matches another's start or end is
    /// appended (reversed when needed) until the ring closes or nothing more fits. Pieces that never close (an
    /// extract clipped them) are returned closed by repeating their first node, so what is there is still drawn.
    /// - Complexity: O(p²) for p pieces, fine for the few dozen ways of a multipolygon.
    public static func rings<ID: Hashable>(from pieces: [[ID]]) -> [[ID]] {
        var open = pieces.filter { $0.count >= 2 }
        var rings: [[ID]] = []
        while !open.isEmpty {
            var ring = open.removeFirst()
            while ring.first != ring.last {
                guard let tail = ring.last,
                    let i = open.firstIndex(where: { $0.first == tail || $0.last == tail })
                else { break }
                let piece = open.remove(at: i)
                ring += (piece.first == tail ? piece : piece.reversed()).dropFirst()
            }
            if ring.first != ring.last, let first = ring.first { ring.append(first) }
            if ring.count >= 4 { rings.append(ring) }
        }
        return rings
    }

    /// Groups `outer` and `inner` rings into polygons: each inner ring goes to the first outer ring that contains its
    /// first point; inner rings inside no outer ring are dropped.
    /// - Complexity: O(inner × outer × ring length).
    public static func polygons(outer: [[Coordinate]], inner: [[Coordinate]]) -> [[[Coordinate]]] {
        var polygons = outer.map { [$0] }
        for hole in inner {
            guard let probe = hole.first, let i = outer.firstIndex(where: { $0.ringContains(probe) }) else { continue }
            polygons[i].append(hole)
        }
        return polygons
    }
}
