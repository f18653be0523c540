extension Array where Element == Coordinate {
    /// True when `point` is inside this ring by the even-odd rule, on latitude and longitude as plane coordinates
    /// (fine at city scale). The ring may be closed (last point equal to the first) or open: the closing edge is
    /// implied either way.
    /// - Complexity: O(ring length).
    public func ringContains(_ point: Coordinate) -> Bool {
        var inside = false
        var j = count - 1
        for i in indices {
            let a = self[i]
            let b = self[j]
            if (a.latitude > point.latitude) != (b.latitude > point.latitude) {
                let crossing =
                    a.longitude + (point.latitude - a.latitude) / (b.latitude - a.latitude)
                    * (b.longitude - a.longitude)
                if point.longitude < crossing { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
