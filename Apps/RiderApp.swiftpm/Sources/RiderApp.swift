import CabAppModels
import CabAppleSupport
import CabClient
import SwiftUI

/// The rider app: the server address, then the trip.
@main
struct RiderApp: App {
    @AppStorage("serverURL") private var serverURL = "http://localhost:8080"
    @State private var model: RiderModel?

    var body: some Scene {
        WindowGroup {
            if let model {
                RiderView(model: model)
            } else {
                ServerForm(serverURL: $serverURL) { url in model = Self.makeModel(url) }
            }
        }
    }

    @MainActor
    private static func makeModel(_ url: URL) -> RiderModel {
        let keychain = KeychainToken(account: "rider@\(url.host() ?? "")")
        let model = RiderModel(
            service: CabAPIClient(baseURL: url), token: keychain.read(), location: CoreLocationSource(mode: .pickup),
            riderName: "iPhone rider")
        model.onAccountCreated = { keychain.save($0.token) }
        model.onOpenBookingChanged = { UserDefaults.standard.set($0, forKey: "openBooking") }
        if let open = UserDefaults.standard.string(forKey: "openBooking") { model.resume(bookingID: open) }
        return model
    }
}
