import CabGeo

extension NearestDriverIndex {
    /// The `k` drivers nearest to `point` that `filter` admits and whose last fix is no older than the
    /// configured maximum age at `now` (Unix milliseconds), nearest first.
    ///
    /// Visits rings of cells around the query's cell and stops once the k-th best distance is no farther than
    /// the nearest unvisited ring can be, or when the rings cover every occupied cell.
    /// - Complexity: O(cells visited + drivers in them); about 9-25 cells in a city.
    public func nearest(
        to point: Coordinate, k: Int, filter: DriverFilter = .available, now: Int64
    ) -> [NearbyDriver<Key>] {
        guard k > 0, let occupiedX, let occupiedY else { return [] }
        var search = Search(index: self, point: point, k: k, filter: filter, now: now)
        let x0 = cellX(point.longitude)
        let y0 = cellY(point.latitude)
        let cellMeters = min(
            cellLatitudeDegrees * search.metersPerDegreeLatitude,
            cellLongitudeDegrees * search.metersPerDegreeLongitude)
        let maxD2 = filter.maxDistanceMeters.map { $0 * $0 } ?? .infinity
        var ring: Int32 = 0
        while true {
            visitRing(ring, x0: x0, y0: y0, occupiedX: occupiedX, occupiedY: occupiedY, search: &search)
            let reach = Double(ring) * cellMeters
            let reachSquared = reach * reach
            if search.count == k && search.worstSquared <= reachSquared { break }
            if reachSquared > maxD2 { break }
            if x0 - ring <= occupiedX.lowerBound && x0 + ring >= occupiedX.upperBound
                && y0 - ring <= occupiedY.lowerBound && y0 + ring >= occupiedY.upperBound
            {
                break
            }
            ring += 1
        }
        return search.results(maxDistanceSquared: maxD2)
    }

    private func visitRing(
        _ ring: Int32, x0: Int32, y0: Int32, occupiedX: ClosedRange<Int32>, occupiedY: ClosedRange<Int32>,
        search: inout Search
    ) {
        let yLow = max(y0 - ring, occupiedY.lowerBound)
        let yHigh = min(y0 + ring, occupiedY.upperBound)
        guard yLow <= yHigh else { return }
        for y in yLow...yHigh {
            let onEdgeRow = y == y0 - ring || y == y0 + ring
            if onEdgeRow {
                let xLow = max(x0 - ring, occupiedX.lowerBound)
                let xHigh = min(x0 + ring, occupiedX.upperBound)
                guard xLow <= xHigh else { continue }
                for x in xLow...xHigh { visitCell(x, y, search: &search) }
            } else {
                if occupiedX.contains(x0 - ring) { visitCell(x0 - ring, y, search: &search) }
                if ring > 0, occupiedX.contains(x0 + ring) { visitCell(x0 + ring, y, search: &search) }
            }
        }
    }

    @inline(__always) private func visitCell(_ x: Int32, _ y: Int32, search: inout Search) {
        guard let cell = cellByKey[Self.cellKey(x, y)] else { return }
        cellMembers[Int(cell)].withUnsafeBufferPointer { members in
            for slot in members { search.consider(Int(slot)) }
        }
    }

    /// The same answer as `nearest` by looking at every driver: the baseline for tests and benchmarks.
    /// - Complexity: O(n).
    public func nearestByScan(
        to point: Coordinate, k: Int, filter: DriverFilter = .available, now: Int64
    ) -> [NearbyDriver<Key>] {
        guard k > 0 else { return [] }
        var search = Search(index: self, point: point, k: k, filter: filter, now: now)
        for slot in keys.indices where cellOfSlot[slot] >= 0 { search.consider(slot) }
        return search.results(maxDistanceSquared: filter.maxDistanceMeters.map { $0 * $0 } ?? .infinity)
    }

    /// The k best candidates so far, kept sorted in a small array (k is small).
    private struct Search {
        let index: NearestDriverIndex
        let latitudeE7: Double
        let longitudeE7: Double
        let metersPerDegreeLatitude: Double
        let metersPerDegreeLongitude: Double
        let k: Int
        let filter: DriverFilter
        let oldestAllowed: Int64
        var best: [(distanceSquared: Double, slot: Int32)] = []

        init(index: NearestDriverIndex, point: Coordinate, k: Int, filter: DriverFilter, now: Int64) {
            self.index = index
            latitudeE7 = point.latitude * 1e7
            longitudeE7 = point.longitude * 1e7
            let projection = LocalProjection(referenceLatitude: point.latitude)
            metersPerDegreeLatitude = projection.metersPerDegreeLatitude
            metersPerDegreeLongitude = max(projection.metersPerDegreeLongitude, 1)
            self.k = k
            self.filter = filter
            oldestAllowed = now &- index.configuration.maxAgeMilliseconds
            best.reserveCapacity(k + 1)
        }

        var count: Int { best.count }
        var worstSquared: Double { best.last?.distanceSquared ?? .infinity }

        @inline(__always) mutating func consider(_ s: Int) {
            guard index.timesMilliseconds[s] >= oldestAllowed,
                filter.admits(status: index.statuses[s], vehicle: index.vehicles[s])
            else { return }
            let dy = (Double(index.latitudesE7[s]) - latitudeE7) * 1e-7 * metersPerDegreeLatitude
            let dx = (Double(index.longitudesE7[s]) - longitudeE7) * 1e-7 * metersPerDegreeLongitude
            let d2 = dx * dx + dy * dy
            if best.count == k {
                guard d2 < best[k - 1].distanceSquared else { return }
                best.removeLast()
            }
            var i = best.count
            best.append((d2, Int32(s)))
            while i > 0 && best[i - 1].distanceSquared > d2 {
                best[i] = best[i - 1]
                i -= 1
            }
            best[i] = (d2, Int32(s))
        }

        func results(maxDistanceSquared: Double) -> [NearbyDriver<Key>] {
            best.lazy.filter { $0.distanceSquared <= maxDistanceSquared }.map {
                let s = Int($0.slot)
                return NearbyDriver(
                    driver: index.keys[s], distanceMeters: $0.distanceSquared.squareRoot(),
                    position: index.position(atSlot: s))
            }
        }
    }
}
