import CabGeo

/// The zoom bands the base map stores geometry for, each simplified to about one screen pixel.
public enum BaseMapZoomBand: Int, Sendable, CaseIterable {
    /// Zoom 12 and below: lines simplified to 20 m.
    case far = 12
    /// Zoom 13 and 14: lines simplified to 5 m.
    case middle = 14
    /// Zoom 15 and above: the imported geometry.
    case near = 99

    /// The band that serves `zoom`.
    public init(zoom: Int) {
        self = zoom <= 12 ? .far : zoom <= 14 ? .middle : .near
    }

    /// How far (metres) a simplified line may stray from the original in this band; 0 for none.
    public var toleranceMeters: Double {
        switch self {
        case .far: 20
        case .middle: 5
        case .near: 0
        }
    }

    /// The highest zoom this band serves.
    public var maximumZoom: Int { rawValue }
}

extension BaseMapFeature {
    /// The lowest web-map zoom (0 world ... 19 street) at which the feature is served: main roads early,
    /// residential streets from 14, footways and buildings only close in, areas by their size. (At zoom 13 a tile
    /// is about 5 x 2.5 km: on a metro its residential streets overran the tile's byte budget, which left out half
    /// of them by size, and redrawing them held the browser's main thread for up to half a second per drag.)
    public var minimumZoom: Int {
        switch kind {
        case .road:
            switch featureClass {
            case "motorway", "trunk": return 5
            case "primary": return 8
            case "secondary": return 10
            case "tertiary": return 11
            case "residential", "unclassified", "living_street", "road": return 14
            case "pedestrian": return 14
            default: return 15  // service, track, footway, path, cycleway, steps
            }
        case .railway:
            return featureClass == "rail" ? 9 : 12
        case .water:
            switch featureClass {
            case "coastline": return 5
            case "river": return 8
            case "canal": return 10
            case "water": return Self.areaZoom(sizeMeters: sizeMeters, base: 6)
            default: return 14  // stream, ditch, drain
            }
        case .green:
            return Self.areaZoom(sizeMeters: sizeMeters, base: 8)
        case .building:
            return 15
        }
    }

    /// The order in which features survive a capped request: lower ranks are kept first.
    public var rank: Int {
        switch kind {
        case .water: return featureClass == "coastline" ? 0 : 1
        case .road:
            switch featureClass {
            case "motorway", "trunk", "primary": return 2
            case "secondary", "tertiary": return 3
            case "residential", "unclassified", "living_street", "road", "pedestrian": return 4
            case "service", "track": return 6
            default: return 7
            }
        case .railway: return 5
        case .green: return 5
        case .building: return 8
        }
    }

    /// The diagonal of the feature's bounding box in metres (0 when empty).
    public var sizeMeters: Double {
        guard let box = geometry.boundingBox else { return 0 }
        return box.southWest.distanceMeters(to: box.northEast)
    }

    /// Areas appear once they would be a few pixels wide: a 5 km lake at `base`, smaller ones later.
    private static func areaZoom(sizeMeters: Double, base: Int) -> Int {
        switch sizeMeters {
        case 5_000...: base
        case 1_000...: base + 3
        case 200...: base + 5
        default: base + 7
        }
    }
}
