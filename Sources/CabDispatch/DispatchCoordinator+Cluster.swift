import CabCore

extension DispatchCoordinator {
    /// On a cluster (`bus.spansNodes`), a trip this node dispatches may be accepted or cancelled on another node
    /// (the store's compare-and-set decides): this node hears the status from the bus and ends its own dispatch
    /// of the trip, withdrawing the offers it made to the other drivers. Subscribed when dispatch of a trip
    /// starts here, unsubscribed when it ends (`stopWatching`).
    func watchForChangesElsewhere(_ trip: BookingID) {
        guard bus.spansNodes else { return }
        let watcher = TripDispatchWatcher(trip: trip, coordinator: self)
        let fresh = state.withLock { s -> Bool in
            guard s.watchers[trip] == nil else { return false }
            s.watchers[trip] = watcher
            return true
        }
        if fresh { bus.subscribe(watcher, to: .trip(trip)) }
    }

    /// Stops listening for `trip`'s changes on other nodes (its dispatch here ended).
    func stopWatching(_ trip: BookingID) {
        guard let watcher = state.withLock({ $0.watchers.removeValue(forKey: trip) }) else { return }
        bus.unsubscribe(watcher, from: .trip(trip))
    }

    /// `trip` is now `status` (told by the bus, possibly from another node): a status past dispatch ends this
    /// node's dispatch of it (accepted by `driver`, or cancelled). This node's own transitions end it through
    /// their actions as well; ending twice is harmless.
    func heard(_ status: TripState, of trip: BookingID, driver: DriverID?) {
        switch status {
        case .requested, .dispatching: return
        case .accepted: endDispatch(trip, acceptedBy: driver)
        default: endDispatch(trip, acceptedBy: nil)
        }
    }
}

/// One dispatched trip's notifications, for `DispatchCoordinator.heard`.
final class TripDispatchWatcher: TripNotificationReceiver {
    let trip: BookingID
    // Weak: the bus holds the watcher, the coordinator owns the bus.
    private weak let coordinator: DispatchCoordinator?

    init(trip: BookingID, coordinator: DispatchCoordinator) {
        self.trip = trip
        self.coordinator = coordinator
    }

    func receive(_ notification: TripNotification) {
        guard case .status(let id, let status, let driver, _) = notification, id == trip else { return }
        coordinator?.heard(status, of: trip, driver: driver?.id)
    }

    func finish() { coordinator?.stopWatching(trip) }
}
