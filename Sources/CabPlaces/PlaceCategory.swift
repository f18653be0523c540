/// The human category of a tagged feature ("hotel", "cafe", "station") and the words that find it, in the
/// languages of the cities we serve first (English, Finnish, Swedish).
struct PlaceCategory: Sendable, Equatable {
    /// The label shown to a rider.
    var label: String
    /// Extra search words ("kahvila" for a cafe); the label itself is always searchable.
    var synonyms: [String]
    /// How important such a place usually is, 0 ... 100 (orders candidates; higher first).
    var importance: Int

    /// Every searchable word of the category.
    var searchText: String { ([label] + synonyms).joined(separator: " ") }

    /// Keys that make a named feature a point of interest, in order of precedence.
    static let poiKeys = [
        "amenity", "shop", "tourism", "office", "leisure", "railway", "public_transport", "aeroway", "historic",
        "craft", "healthcare", "sport", "man_made", "emergency", "club",
    ]

    /// Values of those keys that are not places a rider goes to, or that duplicate one (a stop position
    /// duplicates its platform).
    static let ignoredValues: Set<String> = [
        "public_transport=stop_position", "railway=rail", "railway=tram", "railway=abandoned", "railway=disused",
        "railway=subway", "railway=light_rail", "railway=switch", "railway=level_crossing", "railway=crossing",
        "railway=buffer_stop", "railway=signal", "railway=platform_edge", "leisure=pitch", "man_made=pipeline",
        "amenity=bench", "amenity=waste_basket", "amenity=bicycle_parking", "amenity=vending_machine",
        "leisure=picnic_table", "historic=yes", "amenity=yes", "shop=yes", "shop=vacant",
    ]

    /// Words for the common values, keyed "key=value".
    static let known: [String: PlaceCategory] = {
        var table: [String: PlaceCategory] = [:]
        func add(_ keys: [String], _ label: String, _ synonyms: [String], _ importance: Int) {
            for key in keys { table[key] = PlaceCategory(label: label, synonyms: synonyms, importance: importance) }
        }
        add(["tourism=hotel"], "hotel", ["hotelli", "hotell"], 55)
        add(["tourism=hostel"], "hostel", ["retkeilymaja", "vandrarhem", "hotel"], 50)
        add(["tourism=guest_house"], "guest house", ["hotel", "majatalo"], 45)
        add(["tourism=museum", "building=museum"], "museum", ["museo", "musee", "museet"], 70)
        add(["tourism=gallery"], "gallery", ["galleria", "art"], 45)
        add(["tourism=attraction"], "attraction", ["nähtävyys", "sight"], 65)
        add(["tourism=zoo"], "zoo", ["eläintarha"], 65)
        add(["tourism=theme_park"], "theme park", ["huvipuisto"], 65)
        add(["tourism=aquarium"], "aquarium", ["akvaario"], 65)
        add(["tourism=artwork"], "artwork", ["art", "taideteos", "statue", "patsas"], 30)
        add(["tourism=information"], "information", ["info", "neuvonta"], 30)
        add(["tourism=viewpoint"], "viewpoint", ["näköala"], 35)
        add(["amenity=cafe"], "cafe", ["café", "coffee", "kahvila", "kafé"], 45)
        add(["amenity=restaurant"], "restaurant", ["ravintola", "restaurang", "food"], 45)
        add(["amenity=fast_food"], "fast food", ["pikaruoka", "food", "burger"], 40)
        add(["amenity=food_court"], "food court", ["food", "restaurant"], 40)
        add(["amenity=bar"], "bar", ["baari", "pub", "drinks"], 40)
        add(["amenity=pub"], "pub", ["bar", "baari", "pubi"], 40)
        add(["amenity=nightclub"], "nightclub", ["club", "yökerho"], 40)
        add(["amenity=pharmacy", "healthcare=pharmacy"], "pharmacy", ["apteekki", "apotek", "chemist"], 45)
        add(["amenity=hospital", "healthcare=hospital"], "hospital", ["sairaala", "sjukhus", "hopital"], 70)
        add(["amenity=clinic", "healthcare=clinic"], "clinic", ["klinikka", "terveysasema"], 45)
        add(["amenity=doctors", "healthcare=doctor"], "doctor", ["lääkäri"], 40)
        add(["amenity=dentist", "healthcare=dentist"], "dentist", ["hammaslääkäri"], 40)
        add(["amenity=bank"], "bank", ["pankki"], 40)
        add(["amenity=atm"], "atm", ["cash", "pankkiautomaatti", "otto"], 25)
        add(["amenity=post_office"], "post office", ["posti", "post"], 45)
        add(["amenity=library"], "library", ["kirjasto", "bibliotek"], 55)
        add(["amenity=theatre"], "theatre", ["theater", "teatteri", "teater", "opera"], 60)
        add(["amenity=casino"], "casino", ["kasino", "gambling"], 70)
        add(["amenity=concert_hall"], "concert hall", ["konserttitalo", "konserthus"], 60)
        add(["amenity=cinema"], "cinema", ["movies", "elokuvateatteri", "kino", "bio"], 55)
        add(["amenity=arts_centre"], "arts centre", ["culture", "kulttuurikeskus"], 50)
        add(["amenity=place_of_worship"], "church", ["kirkko", "kyrka", "place of worship"], 55)
        add(["building=cathedral"], "cathedral", ["church", "tuomiokirkko", "domkyrka", "kirkko"], 65)
        add(["building=church", "building=chapel"], "church", ["kirkko", "kyrka"], 50)
        add(["amenity=school"], "school", ["koulu", "skola"], 45)
        add(["amenity=university"], "university", ["yliopisto", "universitet"], 65)
        add(["amenity=college"], "college", ["opisto"], 50)
        add(["amenity=kindergarten"], "kindergarten", ["päiväkoti", "daycare"], 35)
        add(["amenity=parking"], "parking", ["pysäköinti", "parkkihalli", "car park"], 40)
        add(["amenity=fuel"], "fuel", ["gas station", "petrol", "huoltoasema"], 45)
        add(["amenity=taxi"], "taxi", ["taksi", "taxi rank"], 50)
        add(["amenity=toilets"], "toilets", ["wc", "toilet", "restroom"], 25)
        add(["amenity=police"], "police", ["poliisi", "polis"], 50)
        add(["amenity=townhall"], "town hall", ["kaupungintalo", "city hall"], 55)
        add(["amenity=marketplace"], "marketplace", ["market", "tori", "kauppahalli", "torg"], 55)
        add(["amenity=embassy", "office=diplomatic"], "embassy", ["suurlähetystö", "ambassad"], 45)
        add(["amenity=bicycle_rental"], "bike rental", ["city bike", "kaupunkipyörä", "bicycle"], 30)
        add(["amenity=ferry_terminal"], "ferry terminal", ["ferry", "lautta", "terminal", "port"], 65)
        add(["amenity=bus_station"], "bus station", ["station", "linja-autoasema", "bussiasema"], 70)
        add(
            ["railway=station", "public_transport=station", "building=train_station"], "station",
            ["asema", "train", "railway station", "rautatieasema", "gare"], 75)
        add(["railway=halt"], "station", ["asema", "train"], 60)
        add(["railway=subway_entrance"], "subway entrance", ["metro", "metro entrance"], 30)
        add(["railway=tram_stop"], "tram stop", ["raitiovaunupysäkki", "tram", "stop"], 25)
        add(["highway=bus_stop"], "bus stop", ["pysäkki", "bus", "stop"], 25)
        add(["public_transport=platform"], "platform", ["pysäkki", "stop", "laituri"], 25)
        add(["aeroway=aerodrome"], "airport", ["lentoasema", "flygplats", "aeroport"], 85)
        add(["aeroway=helipad", "aeroway=heliport"], "heliport", ["helicopter", "helikopteri"], 55)
        add(["shop=supermarket"], "supermarket", ["grocery", "ruokakauppa", "market"], 45)
        add(["shop=convenience"], "convenience store", ["kioski", "grocery", "shop"], 30)
        add(["shop=department_store"], "department store", ["tavaratalo", "shop", "store"], 65)
        add(["shop=mall"], "shopping centre", ["mall", "kauppakeskus", "shop"], 65)
        add(["shop=bakery"], "bakery", ["leipomo", "bageri"], 40)
        add(["shop=books"], "bookshop", ["books", "kirjakauppa"], 40)
        add(["shop=clothes"], "clothes shop", ["fashion", "vaatekauppa", "shop"], 30)
        add(["leisure=park"], "park", ["puisto", "park"], 55)
        add(["leisure=garden"], "garden", ["puutarha", "park"], 45)
        add(["leisure=playground"], "playground", ["leikkipuisto"], 30)
        add(["leisure=fitness_centre"], "gym", ["fitness", "kuntosali"], 35)
        add(["leisure=sports_centre"], "sports centre", ["urheilukeskus"], 45)
        add(["leisure=stadium"], "stadium", ["stadion", "stade"], 65)
        add(["leisure=marina"], "marina", ["harbour", "venesatama", "port"], 50)
        add(["historic=memorial", "historic=monument"], "monument", ["memorial", "muistomerkki", "statue"], 40)
        add(["historic=castle"], "castle", ["linna", "fortress", "palace"], 65)
        add(["historic=palace", "building=palace"], "palace", ["palatsi", "palais", "slott"], 65)
        add(["office=government"], "government office", ["virasto", "office"], 40)
        add(["office=company"], "office", ["yritys", "company"], 30)
        return table
    }()

    /// The category of a POI tagged `key=value` (a generic one when the value is not in the table).
    static func poi(key: String, value: String) -> PlaceCategory {
        if let known = known["\(key)=\(value)"] { return known }
        let words = value.split(separator: "_").joined(separator: " ")
        switch key {
        case "shop": return PlaceCategory(label: words + " shop", synonyms: ["shop", "kauppa"], importance: 30)
        case "office": return PlaceCategory(label: words + " office", synonyms: ["office"], importance: 30)
        case "craft": return PlaceCategory(label: words + " workshop", synonyms: [], importance: 30)
        case "historic": return PlaceCategory(label: "historic " + words, synonyms: ["historic"], importance: 45)
        default: return PlaceCategory(label: words, synonyms: [], importance: 35)
        }
    }

    /// The kind score of the strongest tag of `tags` (an attraction that is also a casino is as important as
    /// either), at least `base`: what `PlaceImportance` reads as the feature's kind.
    static func strongestImportance(_ tags: [String: String], base: Int) -> Int {
        var best = base
        for key in poiKeys + ["building"] {
            guard let value = tags[key], let category = known["\(key)=\(value)"] else { continue }
            best = max(best, category.importance)
        }
        return best
    }

    /// Every word of every category: a query made only of these (or prefixes of them, for the word being typed)
    /// is a category search ("hotel", "museo").
    static let vocabulary: Set<String> = {
        var words = Set<String>()
        for category in Array(known.values) + [street, square, metroStation] {
            words.formUnion(TextFolding.tokens(category.searchText))
        }
        return words
    }()

    /// The category of a named building with no POI tags ("building" or a known type such as "museum").
    static func building(_ value: String) -> PlaceCategory {
        if let known = known["building=\(value)"] { return known }
        return PlaceCategory(label: "building", synonyms: ["rakennus"], importance: 35)
    }

    /// A named street or footway.
    static let street = PlaceCategory(label: "street", synonyms: ["katu", "gata", "road", "tie"], importance: 55)
    /// A named square or pedestrian area.
    static let square = PlaceCategory(label: "square", synonyms: ["aukio", "tori", "plaza", "torg"], importance: 55)
    /// A metro station (`railway=station` + `station=subway`).
    static let metroStation = PlaceCategory(
        label: "metro station", synonyms: ["metro", "station", "metroasema", "tunnelbana"], importance: 65)
    /// A house address.
    static let address = PlaceCategory(label: "address", synonyms: [], importance: 10)

    /// A settlement or district (`place=*`, `boundary=administrative`).
    static func area(place value: String) -> PlaceCategory {
        let importance: Int =
            switch value {
            case "country": 95
            case "state", "region", "province", "county": 90
            case "city": 88
            case "town", "municipality": 80
            case "borough", "suburb": 72
            case "quarter", "village": 66
            case "neighbourhood", "square": 60
            case "city_block", "plot": 25
            default: 50
            }
        let synonyms =
            switch value {
            case "square": ["aukio", "tori", "plaza"]
            case "neighbourhood", "quarter", "suburb": ["district", "kaupunginosa"]
            default: [String]()
            }
        return PlaceCategory(
            label: value.split(separator: "_").joined(separator: " "), synonyms: synonyms,
            importance: importance)
    }

    /// A named land use or natural area ("forest", "water").
    static func landArea(_ value: String) -> PlaceCategory {
        let words = value.split(separator: "_").joined(separator: " ")
        let label =
            ["residential", "commercial", "industrial", "retail", "military"].contains(value) ? words + " area" : words
        return PlaceCategory(label: label, synonyms: [], importance: 40)
    }

    /// An administrative area of `admin_level` `level` (2 a country ... 10 a district).
    static func administrative(level: Int) -> PlaceCategory {
        if level <= 2 { return area(place: "country") }
        if level <= 6 { return area(place: "region") }
        if level <= 8 { return area(place: "city") }
        var district = area(place: "suburb")
        district.label = "district"
        return district
    }
}
