/// A callback behind a reference, for keeping in a `Mutex`. A function value kept in a `Mutex` directly
/// (`Mutex<(@Sendable (T) -> Void)?>`) is reabstracted on its way in and out of the generic `withLock` body, and each
/// call wraps the stored function in two more thunks: the chain grows with every call, and after some ten
/// thousand calls calling it overflows the stack (a cluster node died so, silently, in `cab bench cluster`). A
/// reference does not change when read.
package final class Callback<Argument>: Sendable {
    /// The function.
    package let call: @Sendable (Argument) -> Void

    /// A callback calling `call`.
    package init(_ call: @escaping @Sendable (Argument) -> Void) { self.call = call }
}
