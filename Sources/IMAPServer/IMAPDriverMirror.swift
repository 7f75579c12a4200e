import MailDoorServer
import Synchronization

/// What the connection's loop may read of its ``IMAPConnectionDriver`` to answer a command itself
/// (``IMAPConnectionDriver/answerNow(_:)``): the signed-in holder, the selected mailbox's view and the saved search
/// result as the driver last set them, and how many of the driver's tasks are out (a command's, a sign-in's, an
/// IDLE's). The loop answers only while none is: the driver then changes nothing, and the loop, which starts every
/// task, starts none while it answers, so the two never act on the session at once.
struct IMAPDriverMirror: Sendable {
    var holder: MailboxHolder?
    var view: IMAPMailboxView?
    var saved: [UInt32] = []
    /// The driver's tasks begun and not yet ended (``IMAPConnectionDriver/taskBegan()``).
    var tasks = 0
}

/// How many commands a listener's loops answered themselves (``IMAPConnectionDriver/answerNow(_:)``), every
/// connection of the listener together: what shows that a command ran to completion on its loop.
final class IMAPLoopAnswers: Sendable {
    let count = Atomic<Int>(0)
}
