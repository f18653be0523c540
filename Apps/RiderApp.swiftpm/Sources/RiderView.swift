import CabAppModels
import CabAppleSupport
import CabClient
import CabGeo
import MapKit
import SwiftUI

/// The map and the panel below it. Every decision is `RiderFlow`'s; this view only shows it and forwards taps.
struct RiderView: View {
    let model: RiderModel
    @State private var camera: MapCameraPosition = .userLocation(fallback: .automatic)
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
                ForEach(Array(flow.nearbyCars.enumerated()), id: \.offset) { _, car in
                    Annotation("Car nearby", coordinate: car.position.location) {
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
            "Your driver is on the way. Cancelling now may cost a cancellation fee.",
            isPresented: Binding(get: { model.flow.confirmingCancel }, set: { if !$0 { model.keepBooking() } }),
            titleVisibility: .visible
        ) {
            Button("Cancel the ride", role: .destructive) { model.confirmCancel() }
            Button("Keep my ride", role: .cancel) { model.keepBooking() }
        }
        .onChange(of: query) { _, text in model.search(text) }
        .task { model.start() }
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
                if flow.retryAction != nil { Button("Try again") { model.retry() } }
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
        Text("From \(flow.pickup?.name ?? "your location")").font(.subheadline)
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
        if let estimate = flow.estimate {
            HStack {
                Text(TripWords.distance(meters: estimate.distanceMeters))
                Text(TripWords.duration(seconds: estimate.durationSeconds))
                Spacer()
                Text(estimate.fare.total.display ?? "").bold()
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
        if let driver = flow.driver {
            Text([driver.name, driver.vehicle, driver.plate].compactMap { $0 }.joined(separator: " · "))
        }
        if let eta = flow.pickupETASeconds { Text("Arrives in \(TripWords.duration(seconds: Double(eta)))") }
        if let eta = flow.dropoffETASeconds {
            Text("At your destination in \(TripWords.duration(seconds: Double(eta)))")
        }
        if let alert = flow.alert { Text(alert).bold() }
        if let booking = flow.booking, flow.phase != .riding {
            HStack(alignment: .top) {
                QRCodeImage(booking.id).frame(width: 120, height: 120)
                if let pin = booking.pin {
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
        Text("You have arrived").font(.headline)
        if let receipt = flow.booking?.receipt {
            ForEach(receipt.lines, id: \.self) { line in
                HStack {
                    Text(line.label)
                    Spacer()
                    Text(line.amount.display ?? "")
                }
            }
            HStack {
                Text("Total").bold()
                Spacer()
                Text(receipt.total.display ?? "").bold()
            }
        } else if let total = flow.booking?.finalFare?.total {
            HStack {
                Text("Fare").bold()
                Spacer()
                Text(total.display ?? "").bold()
            }
        }
        HStack {
            ForEach(1...5, id: \.self) { stars in
                Button {
                    model.rate(stars: stars)
                } label: {
                    Image(systemName: stars <= (flow.stars ?? 0) ? "star.fill" : "star")
                }
                .accessibilityLabel("\(stars) stars")
            }
        }
        Button("Book another ride") { model.newTrip() }
    }
}
