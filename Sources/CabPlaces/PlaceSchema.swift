import CabGeo

/// The layout of a place index file, shared by the builder and the reader.
///
/// - `place`: one row per result (id = importance order, so FTS5's rowid order is "most important first"),
///   with its names also folded (`folded_names`) so that ranking never folds text at query time.
/// - `place_text`: contentless FTS5 over `names` (every name variant; the street of an address), `extra`
///   (category words, house numbers) and `cells` (a coarse grid token for location bias), folded by
///   `unicode61 remove_diacritics 2`, with prefix indexes for 1-3 characters (as-you-type).
/// - `typo_term`: FTS5 `trigram` over the distinct words of `names` and `extra`, for typo candidates.
/// - `place_shape`: R*Tree over every shape reverse geocoding may answer with, geometry as an auxiliary blob.
enum PlaceSchema {
    /// Written to `meta.format`; the reader refuses other files.
    static let format = "swiftcab-places-2"

    static let create = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE place(
            id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL, names TEXT NOT NULL,
            category TEXT NOT NULL, address TEXT NOT NULL, housenumber TEXT, lat REAL NOT NULL, lon REAL NOT NULL,
            source_type INTEGER NOT NULL, source_id INTEGER NOT NULL, importance REAL NOT NULL,
            folded_names TEXT NOT NULL, lang_names TEXT NOT NULL, area TEXT NOT NULL, pickup_name TEXT,
            pickup_lat REAL, pickup_lon REAL, pickup_kind TEXT);
        CREATE VIRTUAL TABLE place_text USING fts5(
            names, extra, cells, content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
        CREATE VIRTUAL TABLE place_shape USING rtree(
            id, min_lat, max_lat, min_lon, max_lon, +place_id INTEGER, +role INTEGER, +kind INTEGER, +points BLOB);
        CREATE VIRTUAL TABLE typo_term USING fts5(term, tokenize='trigram', detail='none');
        """

    static let fillTypoTerms = """
        CREATE VIRTUAL TABLE temp.place_vocab USING fts5vocab(main, place_text, 'col');
        INSERT INTO typo_term(term)
            SELECT DISTINCT term FROM temp.place_vocab
            WHERE col IN ('names', 'extra') AND length(term) >= 3 AND substr(term, 1, 1) NOT BETWEEN '0' AND '9';
        DROP TABLE temp.place_vocab;
        """

    /// Separates name variants in `place.names` and entries of `place.lang_names`.
    static let nameSeparator: Character = "\u{1F}"
    /// Separates the language code from the name in an entry of `place.lang_names`.
    static let languageSeparator: Character = "\u{1E}"

    /// The entries of a `nameSeparator`-separated column, split on its byte (every row the search reads has two
    /// such columns; splitting by `Character` cost more than the rest of decoding the row).
    static func fields(_ text: String) -> [String] {
        text.utf8.split(separator: 0x1F).map { String(Substring($0)) }
    }

    /// `name:xx` names as stored in `place.lang_names`: "fi␞Helsingin tuomiokirkko␟sv␞Helsingfors domkyrka".
    static func encodeLocalizedNames(_ names: [(language: String, name: String)]) -> String {
        names.map { $0.language + String(languageSeparator) + $0.name }.joined(separator: String(nameSeparator))
    }

    /// The inverse of `encodeLocalizedNames`.
    static func decodeLocalizedNames(_ text: String) -> [(language: String, name: String)] {
        text.split(separator: nameSeparator).compactMap { entry -> (language: String, name: String)? in
            let parts = entry.split(separator: languageSeparator, maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), String(parts[1]))
        }
    }

    static func kindCode(_ kind: PlaceKind) -> Int {
        switch kind {
        case .poi: 0
        case .street: 1
        case .address: 2
        case .area: 3
        }
    }

    static func kind(code: Int) -> PlaceKind {
        switch code {
        case 1: .street
        case 2: .address
        case 3: .area
        default: .poi
        }
    }

    /// How a shape is measured in reverse geocoding.
    enum Role: Int {
        /// Distance to the point.
        case point = 0
        /// Distance to the polyline.
        case line = 1
        /// Zero inside the ring, else distance to its outline.
        case polygon = 2
    }

    // MARK: Location cells

    /// Cells are 0.01° of latitude (1.1 km) by 0.02° of longitude (1.1 km at 60° N, 2.2 km at the equator).
    static func cell(_ c: Coordinate) -> (y: Int, x: Int) {
        (Int((c.latitude * 100).rounded(.down)), Int((c.longitude * 50).rounded(.down)))
    }

    /// The FTS token of a cell ("g15016x10246"): letters and digits only, offset to stay non-negative.
    static func cellToken(y: Int, x: Int) -> String { "g\(y + 9000)x\(x + 9000)" }

    static func cellToken(_ c: Coordinate) -> String {
        let (y, x) = cell(c)
        return cellToken(y: y, x: x)
    }

    /// The cell of `c` and its eight neighbours.
    static func neighbourhoodTokens(_ c: Coordinate) -> [String] {
        let (y, x) = cell(c)
        var tokens: [String] = []
        for dy in -1...1 { for dx in -1...1 { tokens.append(cellToken(y: y + dy, x: x + dx)) } }
        return tokens
    }

    // MARK: Shape blobs

    /// Vertices as little-endian Int32 pairs in 1e-7 degrees (OSM's own precision): 8 bytes a vertex.
    static func encode(_ points: [Coordinate]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(points.count * 8)
        for p in points {
            for value in [p.latitude, p.longitude] {
                let v = UInt32(bitPattern: Int32((value * 1e7).rounded()))
                bytes.append(UInt8(v & 0xff))
                bytes.append(UInt8((v >> 8) & 0xff))
                bytes.append(UInt8((v >> 16) & 0xff))
                bytes.append(UInt8(v >> 24))
            }
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> [Coordinate] {
        var points: [Coordinate] = []
        points.reserveCapacity(bytes.count / 8)
        var i = 0
        func next() -> Double {
            let v =
                UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            i += 4
            return Double(Int32(bitPattern: v)) / 1e7
        }
        while i + 8 <= bytes.count {
            let lat = next()
            let lon = next()
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        return points
    }
}
