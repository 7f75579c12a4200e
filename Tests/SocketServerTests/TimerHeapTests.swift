import Testing

@testable import SocketServer

@Suite("TimerHeap")
struct TimerHeapTests {
    @Test("pops due entries earliest first and leaves the rest")
    func order() {
        var heap = TimerHeap()
        for (deadline, fd) in [(50, 5), (10, 1), (40, 4), (20, 2), (30, 3), (10, 6)] {
            heap.push(.init(deadline: UInt64(deadline), fd: Int32(fd)))
        }
        var popped: [UInt64] = []
        while let entry = heap.popDue(now: 35) { popped.append(entry.deadline) }
        #expect(popped == [10, 10, 20, 30])
        #expect(heap.earliest == 40)
        #expect(heap.count == 2)
    }

    @Test("nothing is due before its deadline")
    func notDue() {
        var heap = TimerHeap()
        heap.push(.init(deadline: 100, fd: 1))
        #expect(heap.popDue(now: 99) == nil)
        #expect(heap.popDue(now: 100)?.fd == 1)
        #expect(heap.isEmpty)
    }
}
