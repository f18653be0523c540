import CabGeo

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One slippy-map tile: XYZ numbering on Web Mercator (x grows east from 180°W, y grows south from 85.05°N),
/// `2^zoom` tiles a side.
public struct MapTile: Hashable, Sendable, CustomStringConvertible {
    /// The zooms a tile may have.
    public static let zoomRange = 0...22
    /// The zoom (0: the whole world in one tile).
    public let zoom: Int
    /// The column, 0 ..< 2^zoom.
    public let x: Int
    /// The row, 0 ..< 2^zoom, north first.
    public let y: Int

    /// The tile `zoom/x/y`, or nil when the zoom is outside `zoomRange` or x or y outside 0 ..< 2^zoom.
    public init?(zoom: Int, x: Int, y: Int) {
        guard Self.zoomRange.contains(zoom) else { return nil }
        let side = 1 << zoom
        guard (0..<side).contains(x), (0..<side).contains(y) else { return nil }
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    /// The tile at `zoom` that holds `point` (points beyond Web Mercator's ±85.05° fall in the edge rows).
    public init(containing point: Coordinate, zoom: Int) {
        precondition(Self.zoomRange.contains(zoom), "MapTile zoom \(zoom) outside \(Self.zoomRange)")
        let side = Double(1 << zoom)
        let latitude = min(max(point.latitude, -Self.maximumLatitude), Self.maximumLatitude) * .pi / 180
        let x = (point.longitude + 180) / 360 * side
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2 * side
        let last = (1 << zoom) - 1
        self.zoom = zoom
        self.x = min(max(Int(x.rounded(.down)), 0), last)
        self.y = min(max(Int(y.rounded(.down)), 0), last)
    }

    /// The northernmost latitude Web Mercator draws (the square world's edge).
    public static let maximumLatitude = 85.051_128_779_806_59

    /// "zoom/x/y".
    public var description: String { "\(zoom)/\(x)/\(y)" }

    /// The tile's box in degrees.
    public var boundingBox: BoundingBox {
        BoundingBox(
            southWest: Coordinate(latitude: Self.latitude(row: y + 1, zoom: zoom), longitude: Self.longitude(x, zoom)),
            northEast: Coordinate(latitude: Self.latitude(row: y, zoom: zoom), longitude: Self.longitude(x + 1, zoom)))
    }

    /// The tiles at `zoom` that cover `box`, row by row from the north-west.
    /// - Complexity: O(tiles).
    public static func covering(_ box: BoundingBox, zoom: Int) -> [MapTile] {
        let northWest = MapTile(
            containing: Coordinate(latitude: box.northEast.latitude, longitude: box.southWest.longitude), zoom: zoom)
        let southEast = MapTile(
            containing: Coordinate(latitude: box.southWest.latitude, longitude: box.northEast.longitude), zoom: zoom)
        var tiles: [MapTile] = []
        for y in northWest.y...southEast.y {
            for x in northWest.x...southEast.x {
                // In range by construction: both corners are tiles of this zoom.
                tiles.append(MapTile(zoom: zoom, x: x, y: y)!)
            }
        }
        return tiles
    }

    /// How many degrees of latitude one pixel of a 256-pixel tile spans at the tile's centre: the finest detail
    /// the tile can show.
    public var pixelLatitudeDegrees: Double {
        let box = boundingBox
        return (box.northEast.latitude - box.southWest.latitude) / 256
    }

    private static func longitude(_ column: Int, _ zoom: Int) -> Double {
        Double(column) / Double(1 << zoom) * 360 - 180
    }

    private static func latitude(row: Int, zoom: Int) -> Double {
        let n = Double.pi - 2 * Double.pi * Double(row) / Double(1 << zoom)
        return atan(sinh(n)) * 180 / .pi
    }
}
