import Testing

@testable import CabBaseMap

/// A tile's geometry: read from the stored text, clipped to the tile (lines cut into the pieces inside, polygons
/// clipped as polygons), measured in the tile's pixels, and written with the tile's decimals.
@Suite struct TileGeometryTests {
    typealias P = TileGeometry.Point
    static let box = TileGeometry.Box(west: 0, south: 0, east: 10, north: 10)

    @Test func aLineIsCutIntoThePiecesInside() {
        // In at the west edge, out at the north, back in from the north, out at the east.
        let line = [P(x: -5, y: 5), P(x: 5, y: 5), P(x: 5, y: 15), P(x: 8, y: 15), P(x: 8, y: 5), P(x: 18, y: 5)]
        let pieces = TileGeometry.clip(line: line, to: Self.box)
        #expect(
            pieces == [
                [P(x: 0, y: 5), P(x: 5, y: 5), P(x: 5, y: 10)],
                [P(x: 8, y: 10), P(x: 8, y: 5), P(x: 10, y: 5)],
            ])
        #expect(TileGeometry.clip(line: [P(x: -5, y: -5), P(x: -1, y: 20)], to: Self.box).isEmpty)
        let inside = [P(x: 1, y: 1), P(x: 2, y: 2)]
        #expect(TileGeometry.clip(line: inside, to: Self.box) == [inside])
    }

    @Test func aPolygonIsClippedAsAPolygon() throws {
        // A square over the box's north-east corner: the quarter inside is left, closed.
        let square = [P(x: 5, y: 5), P(x: 15, y: 5), P(x: 15, y: 15), P(x: 5, y: 15), P(x: 5, y: 5)]
        let clipped = try #require(TileGeometry.clip(ring: square, to: Self.box))
        #expect(clipped.first == clipped.last)
        #expect(abs(TileGeometry.signedArea(clipped)) == 25)
        #expect(Set(clipped.map { "\($0.x),\($0.y)" }) == ["5.0,5.0", "10.0,5.0", "10.0,10.0", "5.0,10.0"])
        // A ring around the whole box becomes the box; one beside it goes.
        let around = [P(x: -1, y: -1), P(x: 11, y: -1), P(x: 11, y: 11), P(x: -1, y: 11), P(x: -1, y: -1)]
        #expect(abs(TileGeometry.signedArea(try #require(TileGeometry.clip(ring: around, to: Self.box)))) == 100)
        #expect(TileGeometry.clip(ring: square.map { P(x: $0.x + 20, y: $0.y) }, to: Self.box) == nil)
        // A polygon whose outer ring is gone goes whole; a hole outside the box goes alone.
        let polygon = TileGeometry(shape: .multiPolygon, parts: [[around, square.map { P(x: $0.x + 20, y: $0.y) }]])
        let kept = polygon.clipped(to: Self.box)
        #expect(kept.parts.count == 1 && kept.parts[0].count == 1)
        let away = TileGeometry(shape: .polygon, parts: [[square.map { P(x: $0.x + 20, y: $0.y) }]])
        #expect(away.clipped(to: Self.box).isEmpty)
    }

    @Test func aFeatureInsideIsUnchanged() throws {
        let stored = "[[24.93,60.16],[24.931,60.161]]"
        let geometry = try #require(TileGeometry(shape: .lineString, coordinates: stored))
        let box = TileGeometry.Box(west: 24, south: 60, east: 25, north: 61)
        #expect(geometry.clipped(to: box) == geometry)
        var out: [UInt8] = []
        geometry.appendCoordinates(decimals: 6, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == stored)
    }

    @Test func textIsReadAndWrittenWithTheTilesDecimals() throws {
        let text = "[[[[24.934567,-60.1],[0.000004,1.999996],[5,-3.25],[24.934567,-60.1]]],[[[1,2],[3,4],[5,6],[1,2]]]]"
        let geometry = try #require(TileGeometry(shape: .multiPolygon, coordinates: text))
        #expect(geometry.parts.count == 2 && geometry.parts[0][0][1] == P(x: 0.000004, y: 1.999996))
        var out: [UInt8] = []
        geometry.appendCoordinates(decimals: 5, to: &out)
        #expect(
            String(decoding: out, as: UTF8.self)
                == "[[[[24.93457,-60.1],[0,2],[5,-3.25],[24.93457,-60.1]]],[[[1,2],[3,4],[5,6],[1,2]]]]")
        #expect(TileGeometry(shape: .lineString, coordinates: "[[1,2],[3]]") == nil)
        #expect(TileGeometry(shape: .polygon, coordinates: "[[1,2],[3,4]]") == nil)
    }

    /// A line cut into two pieces is written as a MultiLineString.
    @Test func aCutLineBecomesAMultiLineString() {
        let points = [P(x: -5, y: 5), P(x: 5, y: 5), P(x: 5, y: 15), P(x: 8, y: 15), P(x: 8, y: 5)]
        let line = TileGeometry(shape: .lineString, parts: [[points]])
        let cut = line.clipped(to: Self.box)
        #expect(cut.geoJSONType == "MultiLineString")
        #expect(line.geoJSONType == "LineString")
    }

    @Test func sizeIsLengthOrAreaInPixels() {
        let scale = P(x: 2, y: 3)
        let line = TileGeometry(shape: .lineString, parts: [[[P(x: 0, y: 0), P(x: 3, y: 0), P(x: 3, y: 2)]]])
        #expect(line.pixels(scale: scale) == 12)
        let outer = [P(x: 0, y: 0), P(x: 4, y: 0), P(x: 4, y: 4), P(x: 0, y: 4), P(x: 0, y: 0)]
        let hole = [P(x: 1, y: 1), P(x: 2, y: 1), P(x: 2, y: 2), P(x: 1, y: 2), P(x: 1, y: 1)]
        #expect(TileGeometry(shape: .polygon, parts: [[outer, hole]]).pixels(scale: scale) == (16 - 1) * 6)
    }
}
