import CabAppModels
import CabAppleSupport
import CabClient
import CabGeo
import MapKit
import SwiftUI

/// The shift: sign in, online, offers, the trip. Every decision is `DriverShift`'s; this view shows it.
struct DriverView: View {
    let model: DriverModel
    @Environment(\.scenePhase) private var scenePhase
    @State private var camera: MapCameraPosition = .userLocation(followsHeading: true, fallback: .automatic)

    var body: some View {
        let shift = model.shift
        Map(position: $camera) {
            UserAnnotation()
            if let offer = shift.offer {
                Marker("Pickup", coordinate: offer.pickup.location)
            }
            if let trip = shift.trip {
                Marker("Pickup", coordinate: trip.pickup.location).tint(.green)
                Marker("Drop-off", coordinate: trip.dropoff.location)
                if shift.route.count > 1 {
                    MapPolyline(coordinates: shift.route.map(\.location)).stroke(.blue, lineWidth: 5)
                }
            }
        }
        .safeAreaInset(edge: .bottom) {
            ShiftPanel(model: model).padding().background(.regularMaterial)
        }
        .onChange(of: scenePhase) { _, phase in
            switch phase {
            case .background: model.enteredBackground()
            case .active: model.enteredForeground()
            default: break
            }
        }
        .task {
            // The countdown and the reporter's due uploads; the decisions are the model's.
            while !Task.isCancelled {
                model.tick()
                try? await Task.sleep(for: .seconds(1))  // cancelled with the view: nothing to report
            }
        }
    }
}

/// What the driver reads and taps at each step.
struct ShiftPanel: View {
    let model: DriverModel
    @State private var name = ""
    @State private var vehicle = ""
    @State private var plate = ""
    @State private var token = ""
    @State private var code = ""
    @State private var scanning = false

    var body: some View {
        let shift = model.shift
        VStack(alignment: .leading, spacing: 10) {
            if let error = shift.error { Text(error).foregroundStyle(.red) }
            if let problem = model.sharingProblem { Text(problem).foregroundStyle(.orange) }
            if let notice = shift.notice { Text(notice).foregroundStyle(.secondary) }
            if let queued = model.queuedLine { Text(queued).font(.caption) }
            switch shift.phase {
            case .signedOut, .signingIn:
                TextField("Your name", text: $name)
                TextField("Car", text: $vehicle)
                TextField("Number plate", text: $plate)
                Button("Create driver account") { model.signUp(name: name, vehicle: vehicle, plate: plate) }
                TextField("…or paste a driver token", text: $token).textInputAutocapitalization(.never)
                Button("Sign in") { model.signIn(token: token) }
            case .offline, .goingOnline:
                if let account = shift.accountLine { Text(account) }
                Button("Go online") { model.goOnline() }.buttonStyle(.borderedProminent)
                Button("Sign out") { model.signOut() }
            case .waiting, .goingOffline:
                Text("Online — waiting for trips")
                Button("Go offline") { model.goOffline() }
            case .offered, .accepting:
                if let title = shift.offerTitle {
                    Text(title).font(.headline)
                    if let eta = shift.offerETALine { Text(eta) }
                    if let left = shift.countdownLine { Text(left).monospacedDigit() }
                    HStack {
                        Button("Accept") { model.accept() }.buttonStyle(.borderedProminent)
                        Button("Decline") { model.decline() }
                    }
                }
            case .toPickup, .arriving:
                if let line = shift.driveToLine { Text(line).font(.headline) }
                Button("I have arrived") { model.arrived() }.buttonStyle(.borderedProminent)
                Button("Go offline") { model.goOffline() }
            case .atPickup, .starting:
                Text("Ask the rider for their PIN, or scan their QR code.")
                TextField("PIN", text: $code).keyboardType(.numberPad)
                HStack {
                    Button("Start trip") { model.start(code: code) }.buttonStyle(.borderedProminent)
                    Button("Scan QR code") {
                        Task {
                            if await QRScanner.cameraReady() { scanning = true } else { model.scannerUnavailable() }
                        }
                    }
                }
            case .riding, .completing:
                if let line = shift.driveToLine { Text(line).font(.headline) }
                Button("Complete trip") { model.complete() }.buttonStyle(.borderedProminent)
            case .tripDone:
                if let fare = shift.fareLine { Text(fare).font(.title) }
                Button("Done") { model.done() }
            }
        }
        .disabled(shift.isBusy)
        .overlay { if shift.isBusy { ProgressView() } }
        .textFieldStyle(.roundedBorder)
        .sheet(isPresented: $scanning) {
            QRScanner(
                found: { payload in
                    scanning = false
                    model.start(code: payload)  // DriverShift checks it is this trip's code before sending it
                },
                unavailable: {
                    scanning = false
                    model.scannerUnavailable()
                })
        }
    }
}
