#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CabGeo

/// What turning at a junction costs, by the angle between the road arrived on and the road left on.
///
/// The model is OSRM's car profile's (`process_turn` in its `car.lua`), described in docs/turns.md and written
/// here in our own terms:
/// - A turn where more than two pieces meet, or a U-turn, costs `turnPenaltyMilliseconds` times a logistic
///   curve of the angle: about 7 ms straight on, 2.1 s for a square right turn and 5.4 s for a square left
///   one (right-hand traffic; `turnBias` shapes the two sides), nearly the whole 7.5 s at 180 degrees.
/// - A turn across oncoming traffic (left where traffic keeps right) pays up to
///   `oncomingTurnPenaltyMilliseconds` more, tapering with the same curve's shape; not at U-turns, not onto or
///   off a roundabout.
/// - Where only two pieces meet (a joint, or a bend in the road) nothing is paid but a U-turn.
///
/// Angles are taken between headings a little way into each piece (`lookaheadMeters`), not the last few
/// centimetres of a mapped kink. A car that turns back pays the curve at 180 degrees on top of
/// `uTurnPenaltyMilliseconds` (`TurnStates.turn`), as OSRM's profile charges.
struct TurnCostModel {
    /// How far along a piece its heading is read.
    static let lookaheadMeters = 10.0

    private let maxPenalty: Double
    private let bias: Double
    private let oncomingPenalty: Double
    private let drivesOnLeft: Bool
    /// Per piece: the heading leaving its tail, and the heading arriving at its head (degrees from north).
    private let startHeading: [Float]
    private let endHeading: [Float]
    /// Pieces meeting at each node (saturating at 255; a loop counts twice).
    private let roads: [UInt8]
    private let roundabout: [Bool]

    init(profile: TravelProfile, pieces: PieceTable, nodeCount: Int) {
        maxPenalty = Double(profile.turnPenaltyMilliseconds)
        bias = profile.drivesOnLeft ? 1 / profile.turnBias : profile.turnBias
        oncomingPenalty = Double(profile.oncomingTurnPenaltyMilliseconds)
        drivesOnLeft = profile.drivesOnLeft
        roundabout = pieces.roundabout
        var starts: [Float] = []
        var ends: [Float] = []
        starts.reserveCapacity(pieces.count)
        ends.reserveCapacity(pieces.count)
        var roads = [UInt8](repeating: 0, count: nodeCount)
        for p in 0..<pieces.count {
            let line = pieces.coordinates[Int(pieces.firstCoordinate[p])..<Int(pieces.firstCoordinate[p + 1])]
            starts.append(Float(Self.heading(line)))
            ends.append(Float((Self.heading(line.reversed()) + 180).truncatingRemainder(dividingBy: 360)))
            for n in [Int(pieces.tails[p]), Int(pieces.heads[p])] where roads[n] < 255 { roads[n] += 1 }
        }
        (startHeading, endHeading, self.roads) = (starts, ends, roads)
    }

    /// The heading from the line's first point towards its point `lookaheadMeters` along (or its last point).
    private static func heading<Line: Collection<Coordinate>>(_ line: Line) -> Double {
        guard let origin = line.first else { return 0 }
        var travelled = 0.0
        var previous = origin
        for point in line.dropFirst() {
            let step = previous.distanceMeters(to: point)
            if travelled + step >= lookaheadMeters, step > 0 {
                let share = (lookaheadMeters - travelled) / step
                let ahead = Coordinate(
                    latitude: previous.latitude + (point.latitude - previous.latitude) * share,
                    longitude: previous.longitude + (point.longitude - previous.longitude) * share)
                return origin.bearingDegrees(to: ahead)
            }
            travelled += step
            previous = point
        }
        return origin.bearingDegrees(to: previous)
    }

    /// The heading of base edge `base` as it leaves its tail.
    private func departureHeading(_ base: Int) -> Double {
        let p = base >> 1
        return base & 1 == 0 ? Double(startHeading[p]) : Double(endHeading[p]) + 180
    }

    /// The heading of base edge `base` as it arrives at its head.
    private func arrivalHeading(_ base: Int) -> Double {
        let p = base >> 1
        return base & 1 == 0 ? Double(endHeading[p]) : Double(startHeading[p]) + 180
    }

    /// The turn from `arrival` onto `departure` in degrees: 0 straight on, positive to the right, negative to the
    /// left, 180 back.
    func angle(arrival: Int, departure: Int) -> Double {
        if departure == arrival ^ 1 { return 180 }
        var a = (departureHeading(departure) - arrivalHeading(arrival)).truncatingRemainder(dividingBy: 360)
        if a > 180 { a -= 360 } else if a <= -180 { a += 360 }
        // To a hundredth of a degree: a road drawn straight through is 0 (the curve's right-hand side), not a
        // rounding error's slight left, which would cost the oncoming-traffic term (75 ms) on every straight road.
        return (a * 100).rounded() / 100
    }

    /// What turning from `arrival` onto `departure` at `node` costs, in milliseconds (the U-turn penalty apart).
    func cost(arrival: Int, departure: Int, at node: Int) -> UInt32 {
        let uTurn = departure == arrival ^ 1
        guard uTurn || roads[node] > 2 else { return 0 }
        let a = angle(arrival: arrival, departure: departure)
        let x = a >= 0 ? (13 / bias) * a / 180 - 6.5 * bias : (13 * bias) * -a / 180 - 6.5 / bias
        var cost = maxPenalty * Self.logistic(x)
        let crossesOncoming = drivesOnLeft ? a > 0 : a < 0
        if crossesOncoming, !uTurn, !roundabout[arrival >> 1], !roundabout[departure >> 1] {
            cost += oncomingPenalty * Self.logistic(13 * abs(a) / 180 - 3.25)
        }
        return UInt32(cost.rounded())
    }

    private static func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
}
