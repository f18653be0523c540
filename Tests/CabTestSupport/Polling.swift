import Foundation

/// Waits (polling every 2 ms, up to `seconds`) until `condition` holds; returns whether it did. For effects that
/// happen on other threads or processes: the test never sleeps a fixed time and assumes.
public func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}
