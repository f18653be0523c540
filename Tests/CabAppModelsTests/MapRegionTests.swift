import CabAppModels
import CabClient
import CabGeo
import Testing

/// The map's visible region as a box (what the search is near), and the words of small shared things.
@Suite struct MapRegionTests {
    @Test func aRegionIsTheBoxAroundItsCentre() {
        let box = BoundingBox(
            center: Coordinate(latitude: 60.17, longitude: 24.94), latitudeDelta: 0.02, longitudeDelta: 0.04)
        #expect(abs(box.southWest.latitude - 60.16) < 1e-9 && abs(box.northEast.latitude - 60.18) < 1e-9)
        #expect(abs(box.southWest.longitude - 24.92) < 1e-9 && abs(box.northEast.longitude - 24.96) < 1e-9)
        #expect(abs(box.center.latitude - 60.17) < 1e-9 && abs(box.center.longitude - 24.94) < 1e-9)
    }

    @Test func aWorldWideRegionStaysOnTheGlobe() {
        let box = BoundingBox(
            center: Coordinate(latitude: 80, longitude: 170), latitudeDelta: 60, longitudeDelta: 400)
        #expect(box.southWest == Coordinate(latitude: 50, longitude: -180))
        #expect(box.northEast == Coordinate(latitude: 90, longitude: 180))
        #expect(box.southWest.isValid && box.northEast.isValid)
    }

    @Test func moneyAndTheQueueInWords() {
        #expect(TripWords.money(MoneyAmount(amountMinor: 540, currency: "EUR", display: "5,40 €")) == "5,40 €")
        #expect(TripWords.money(MoneyAmount(amountMinor: 1205, currency: "EUR")) == "12.05 EUR")
        #expect(TripWords.queuedPositions(0) == nil)
        #expect(TripWords.queuedPositions(1) == "1 position waiting to be sent")
        #expect(TripWords.queuedPositions(3) == "3 positions waiting to be sent")
    }
}
