import CabAppModels
import CabAppleSupport
import CabClient
import CabGeo
import MapKit
import SwiftUI

/// The map and the panel below it. Every decision and every word is `RiderFlow`'s; this view shows them and
/// forwards taps.
struct RiderView: View {
    let model: RiderModel
    @State private var camera: MapCameraPosition = .userLocation(fallback: .automatic)
    // Mirrors of the model for SwiftUI's bindings: `Binding(get:set:)` takes `@Sendable` closures, which may not
    // read the main-actor model in Swift 6. The model stays the source of truth (the `onChange` pairs below).
    @State private var confirming = false
    @State private var query = ""

    var body: some View {
        let flow = model.flow
        MapReader { proxy in
            Map(position: $camera) {
                if let pickup = flow.pickup {
                    Annotation("Pickup", coordinate: pickup.coordinate.location) {
                        Image(systemName: "figure.wave.circle.fill").font(.title).foregroundStyle(.green)
                    }
                }
                // By index: cars nearby are coarse and anonymous, two can share a position.
                ForEach(flow.nearbyCars.indices, id: \.self) { index in
                    Annotation("Car nearby", coordinate: flow.nearbyCars[index].position.location) {
                        Image(systemName: "car.fill").foregroundStyle(.secondary)
                    }
                }
                if let dropoff = flow.dropoff {
                    Marker("Destination", coordinate: dropoff.coordinate.location)
                }
                if flow.route.count > 1 {
                    MapPolyline(coordinates: flow.route.map(\.location)).stroke(.blue, lineWidth: 5)
                }
                if let car = flow.car {
                    Annotation("Your driver", coordinate: car.coordinate.location) {
                        Image(systemName: "car.top.radiowaves.rear.fill")
                            .rotationEffect(.degrees(car.heading ?? 0))
                            .font(.title2)
                    }
                }
            }
            .onTapGesture { point in
                if let coordinate = proxy.convert(point, from: .local) { model.mapTapped(at: Coordinate(coordinate)) }
            }
            .onMapCameraChange(frequency: .onEnd) { context in model.regionChanged(to: BoundingBox(context.region)) }
        }
        .safeAreaInset(edge: .bottom) {
            TripPanel(model: model, query: $query)
                .padding()
                .background(.regularMaterial)
        }
        .confirmationDialog(
            "Your driver is on the way. Cancelling now may cost a cancellation fee.", isPresented: $confirming,
            titleVisibility: .visible
        ) {
            Button("Cancel the ride", role: .destructive) { model.confirmCancel() }
            Button("Keep my ride", role: .cancel) { model.keepBooking() }
        }
        .onChange(of: model.flow.confirmingCancel) { _, asking in confirming = asking }
        .onChange(of: confirming) { _, shown in if !shown { model.keepBooking() } }  // swiped away
        .onChange(of: query) { _, text in if text != model.flow.searchQuery { model.search(text) } }
        .onChange(of: model.flow.searchQuery) { _, text in if text != query { query = text } }  // a result chosen
        .task { model.start() }  // RiderFlow ignores a second start (the task runs again when the view reappears)
    }
}

/// What the rider reads and taps at each step.
struct TripPanel: View {
    let model: RiderModel
    @Binding var query: String

    var body: some View {
        let flow = model.flow
        VStack(alignment: .leading, spacing: 10) {
            if let error = flow.error {
                Text(error).foregroundStyle(.red)
                if flow.canRetry { Button("Try again") { model.retry() } }
            }
            if let notice = flow.notice { Text(notice).foregroundStyle(.secondary) }
            switch flow.phase {
            case .locating:
                ProgressView("Finding where you are…")
            case .locationDenied:
                Text("Tap the map where you want to be picked up.")
            case .choosingDestination, .estimating, .quoted:
                destination(flow)
            case .booking:
                ProgressView("Booking…")
            case .lookingForDriver, .driverOnTheWay, .driverArrived, .riding:
                LiveTrip(model: model)
            case .finished:
                ReceiptView(model: model)
            case .ended:
                Button("Book another ride") { model.newTrip() }
            }
        }
    }

    @ViewBuilder
    private func destination(_ flow: RiderFlow) -> some View {
        Text(flow.pickupLine).font(.subheadline)
        TextField("Where to?", text: $query).textFieldStyle(.roundedBorder)
        if let message = flow.searchMessage { Text(message).foregroundStyle(.secondary) }
        ForEach(flow.searchResults, id: \.self) { place in
            Button {
                model.choose(place)
            } label: {
                VStack(alignment: .leading) {
                    Text(place.name)
                    if let address = place.address { Text(address).font(.caption).foregroundStyle(.secondary) }
                }
            }
        }
        if flow.phase == .estimating { ProgressView("Finding the route…") }
        if let quote = flow.quote {
            HStack {
                Text(quote.distance)
                Text(quote.duration)
                Spacer()
                Text(quote.fare).bold()
            }
            Button("Book Now") { model.book() }
                .buttonStyle(.borderedProminent)
                .disabled(!flow.canBook)
        }
    }
}

/// The trip from booking to drop-off: status, driver, ETA, PIN and QR, Cancel.
struct LiveTrip: View {
    let model: RiderModel

    var body: some View {
        let flow = model.flow
        if let status = flow.statusLine { Text(status).font(.headline) }
        if let driver = flow.driverLine { Text(driver) }
        if let eta = flow.pickupETALine { Text(eta) }
        if let eta = flow.dropoffETALine { Text(eta) }
        if let alert = flow.alert { Text(alert).bold() }
        if flow.showsPickupCode {
            HStack(alignment: .top) {
                if let code = flow.pickupCode { QRCodeImage(code).frame(width: 120, height: 120) }
                if let pin = flow.booking?.pin {
                    VStack(alignment: .leading) {
                        Text("Your PIN")
                        Text(pin).font(.largeTitle.monospacedDigit())
                    }
                }
            }
        }
        if flow.canCancel { Button("Cancel", role: .destructive) { model.cancel() } }
    }
}

/// The receipt and the rating.
struct ReceiptView: View {
    let model: RiderModel

    var body: some View {
        let flow = model.flow
        let lines = flow.receiptLines
        Text("You have arrived").font(.headline)
        ForEach(lines.indices, id: \.self) { index in
            HStack {
                Text(lines[index].label)
                Spacer()
                Text(lines[index].amount)
            }
            .fontWeight(index == lines.count - 1 ? .bold : .regular)  // the last line is the total
        }
        HStack {
            ForEach(1...5, id: \.self) { stars in
                Button {
                    model.rate(stars: stars)
                } label: {
                    Image(systemName: flow.isStarFilled(stars) ? "star.fill" : "star")
                }
                .accessibilityLabel("\(stars) stars")
            }
        }
        Button("Book another ride") { model.newTrip() }
    }
}
