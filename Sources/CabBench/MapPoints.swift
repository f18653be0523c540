import CabGeo
import CabImport
import CabLoopback
import CabRouting
import Foundation

/// Pickup and dropoff points for load tests, picked from an imported map's road graph so they are routable.
package enum MapPoints {
    /// A road node near the centre of the largest connected road network and one about `offsetMeters` north-east
    /// of it; nil when the directory has no readable road graph.
    package static func centralPair(dataDirectory: String, offsetMeters: Double = 1500) -> (Coordinate, Coordinate)? {
        let directory = DataDirectory(path: dataDirectory)
        guard directory.hasMap, let manifest = try? directory.manifest(),
            let graph = try? RoadGraph.load(from: directory.roadGraphPath, expectedFingerprint: manifest.fingerprint)
        else { return nil }
        let nodes = graph.nodeCoordinates.indices.filter { graph.nodeInLargestComponent[$0] }
        guard let first = nodes.first else { return nil }
        var box = (
            minLat: graph.nodeCoordinates[first].latitude, maxLat: graph.nodeCoordinates[first].latitude,
            minLon: graph.nodeCoordinates[first].longitude, maxLon: graph.nodeCoordinates[first].longitude
        )
        for n in nodes {
            let c = graph.nodeCoordinates[n]
            box = (
                min(box.minLat, c.latitude), max(box.maxLat, c.latitude),
                min(box.minLon, c.longitude), max(box.maxLon, c.longitude)
            )
        }
        let centre = Coordinate(latitude: (box.minLat + box.maxLat) / 2, longitude: (box.minLon + box.maxLon) / 2)
        let step = offsetMeters / 1.41 / 111_320
        let away = Coordinate(
            latitude: centre.latitude + step,
            longitude: centre.longitude + step / max(0.1, cos(centre.latitude * .pi / 180)))
        func nearest(_ target: Coordinate) -> Coordinate {
            // A linear scan: run once per benchmark, over at most a few million nodes.
            let best = nodes.min {
                graph.nodeCoordinates[$0].distanceMeters(to: target)
                    < graph.nodeCoordinates[$1].distanceMeters(to: target)
            }
            return graph.nodeCoordinates[best ?? first]
        }
        return (nearest(centre), nearest(away))
    }
}
