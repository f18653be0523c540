/// Decides what a tagged OSM feature contributes to the index: a POI, an address, a street segment, an area,
/// or nothing. Pure: tags and geometry in, records out.
enum PlaceClassifier {
    /// The name keys indexed, display name first.
    static let nameKeys = [
        "name", "name:fi", "name:sv", "name:en", "name:fr", "name:de", "name:it", "name:es", "alt_name", "old_name",
        "official_name", "short_name", "loc_name", "int_name", "alt_name:fi", "alt_name:sv", "alt_name:en",
    ]

    /// The most `name:xx` variants kept per place for showing in a rider's language.
    static let maximumLanguages = 64

    /// The `name:xx` tags (a language code of two or three letters), keyed by the code: what a result can be
    /// shown in. Sorted by code, at most `maximumLanguages`.
    static func localizedNames(_ tags: [String: String]) -> [(language: String, name: String)] {
        var result: [(language: String, name: String)] = []
        for (key, value) in tags where key.hasPrefix("name:") {
            let code = key.dropFirst(5)
            guard (2...3).contains(code.count), code.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) else { continue }
            let name = value.split(separator: ";").first?.trimmingSpaces ?? ""
            if !name.isEmpty { result.append((String(code), name)) }
        }
        result.sort { $0.language < $1.language }
        return Array(result.prefix(maximumLanguages))
    }

    /// Highway values that are not streets (a named bus stop is a POI, a named crossing is noise).
    static let nonStreetHighways: Set<String> = [
        "bus_stop", "platform", "crossing", "traffic_signals", "street_lamp", "stop", "give_way", "turning_circle",
        "elevator", "emergency_access_point", "milestone", "speed_camera", "motorway_junction", "proposed",
        "construction", "razed", "abandoned",
    ]

    /// Every name variant of `tags`, display name first, de-duplicated; `;`-separated lists split.
    static func names(_ tags: [String: String]) -> [String] {
        var result: [String] = []
        for key in nameKeys {
            guard let value = tags[key] else { continue }
            for part in value.split(separator: ";") {
                let name = part.trimmingSpaces
                if !name.isEmpty, !result.contains(name) { result.append(name) }
            }
        }
        return result
    }

    /// What `feature` contributes.
    static func classify(_ feature: PlaceFeature) -> [PlaceRecord] {
        let tags = feature.tags
        let names = names(tags)
        let languages = localizedNames(tags)
        var records: [PlaceRecord] = []
        let street = tags["addr:street"] ?? tags["addr:place"]
        let housenumber = tags["addr:housenumber"]

        func record(_ kind: PlaceKind, _ category: PlaceCategory, name: String, names: [String], shape: Bool)
            -> PlaceRecord
        {
            let isAddress = kind == .address
            let signals = PlaceImportance.Signals(
                kind: isAddress
                    ? category.importance : PlaceCategory.strongestImportance(tags, base: category.importance),
                hasWiki: !isAddress && (tags["wikidata"] != nil || tags["wikipedia"] != nil),
                languages: isAddress ? 1 : 1 + languages.count,
                areaSquareMeters: isAddress ? 0 : feature.geometry.areaSquareMeters)
            return PlaceRecord(
                kind: kind, source: feature.source, name: name, names: names, category: category, street: street,
                housenumber: housenumber, coordinate: feature.geometry.representativePoint,
                geometry: feature.geometry, signals: signals, reverseShape: shape, shapes: feature.geometry.shapes,
                localizedNames: isAddress ? [] : languages)
        }

        if let name = names.first {
            if let highway = tags["highway"], !nonStreetHighways.contains(highway), !isPoint(feature) {
                let isSquare = tags["area"] == "yes" || isArea(feature) || tags["place"] == "square"
                records.append(record(.street, isSquare ? .square : .street, name: name, names: names, shape: true))
            } else if tags["place"] == "square" {
                records.append(record(.street, .square, name: name, names: names, shape: true))
            } else if let place = tags["place"] {
                records.append(record(.area, .area(place: place), name: name, names: names, shape: false))
            } else if tags["boundary"] == "administrative", let level = Int(tags["admin_level"] ?? "") {
                records.append(record(.area, .administrative(level: level), name: name, names: names, shape: false))
            } else if let leisure = tags["leisure"], ["park", "garden", "nature_reserve", "common"].contains(leisure) {
                records.append(
                    record(
                        .area, .poi(key: "leisure", value: leisure), name: name, names: names,
                        shape: isArea(feature)))
            } else if let category = poiCategory(tags) {
                records.append(record(.poi, category, name: name, names: names, shape: isAtStreetLevel(tags)))
            } else if let building = tags["building"], building != "no" {
                records.append(record(.poi, .building(building), name: name, names: names, shape: true))
            } else if let land = tags["landuse"] ?? tags["natural"] ?? tags["leisure"], isArea(feature) {
                records.append(record(.area, .landArea(land), name: name, names: names, shape: true))
            }
        }
        if let street, let housenumber, !street.isEmpty, !housenumber.isEmpty {
            let name = "\(street) \(housenumber)"
            records.append(record(.address, .address, name: name, names: [name], shape: true))
        }
        return records
    }

    /// The POI category of `tags`, from the first POI key whose value is a place a rider goes to.
    static func poiCategory(_ tags: [String: String]) -> PlaceCategory? {
        if tags["public_transport"] == "stop_position" { return nil }  // its platform is the place
        if tags["highway"] == "bus_stop" { return .poi(key: "highway", value: "bus_stop") }
        if tags["public_transport"] == "platform" || tags["railway"] == "platform" {
            // A platform is a stop to a rider: say which kind.
            if tags["tram"] == "yes" || tags["railway"] == "tram_stop" {
                return .poi(key: "railway", value: "tram_stop")
            }
            if tags["bus"] == "yes" || tags["highway"] == "platform" { return .poi(key: "highway", value: "bus_stop") }
            return .poi(key: "public_transport", value: "platform")
        }
        if tags["railway"] == "station", tags["station"] == "subway" { return .metroStation }
        for key in PlaceCategory.poiKeys {
            guard let value = tags[key], value != "no", !PlaceCategory.ignoredValues.contains("\(key)=\(value)")
            else { continue }
            return .poi(key: key, value: value)
        }
        return nil
    }

    /// False for a POI on another floor (`level` without 0): a tap on the map names what is at street level,
    /// so the shops inside a department store do not hide the store.
    static func isAtStreetLevel(_ tags: [String: String]) -> Bool {
        guard let level = tags["level"] else { return true }
        return level.split(separator: ";").contains { $0.trimmingSpaces == "0" }
    }

    static func isPoint(_ feature: PlaceFeature) -> Bool {
        if case .point = feature.geometry { return true }
        return false
    }

    static func isArea(_ feature: PlaceFeature) -> Bool {
        if case .area = feature.geometry { return true }
        return false
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
