import Dispatch
import Glibc
import HTTP1

// Writing, back-pressure and timeouts of a connection. Everything here runs on `loop.queue`.

extension Connection {
    // MARK: - Writing

    /// Moves ready responses (in order) to the output buffer and writes as much as the socket takes.
    func flush() {
        guard !closed else { return }
        while !closeAfterFlush, let first = slots.first, let bytes = first.bytes {
            output.append(contentsOf: bytes)
            slots.removeFirst()
            if first.closeAfter { closeAfterFlush = true }
        }
        writeOutput()
    }

    func writeOutput() {
        guard !closed else { return }
        var progressed = false
        while outputOffset < output.count {
            let offset = outputOffset
            let sent: Int?
            do {
                sent = try output.withUnsafeBytes { bytes in
                    try SystemCall.nonBlocking("send") {
                        send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch {
                close()
                return
            }
            guard let sent else {
                if progressed || !writeArmed { timeouts.enter(.writing, now: core.clock()) }
                armWrite()
                updateReading()
                return
            }
            outputOffset += sent
            progressed = true
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
        disarmWrite()
        if closeAfterFlush {
            startLingeringClose()
            return
        }
        if slots.isEmpty && (peerClosed || (shuttingDown && !parser.hasPartialMessage)) {
            close()
            return
        }
        updateWait()
        updateReading()
    }

    func armWrite() {
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: loop.queue)
            source.setEventHandler { [unowned self] in self.writable() }
            source.setCancelHandler { [self] in self.sourceCancelled() }
            writeSource = source
        }
        if !writeArmed {
            writeArmed = true
            writeSource?.resume()
        }
    }

    func disarmWrite() {
        if writeArmed {
            writeArmed = false
            writeSource?.suspend()
        }
    }

    func writable() {
        guard !closed else { return }
        writeOutput()
        if !closed && outputOffset == output.count { processInput() }
    }

    // MARK: - Flow control and timeouts

    /// Reads only while the pipeline has room and no output waits (back-pressure).
    func updateReading() {
        guard !closed else { return }
        let shouldRead =
            lingering
            || (!peerClosed && acceptingRequests && slots.count < core.configuration.maxPipelinedRequests
                && outputOffset == output.count)
        guard shouldRead == readSuspended, let epoll = loop.epoll else { return }
        do {
            try epoll.modify(fd, mask: shouldRead ? Epoll.readable : 0)
            readSuspended = !shouldRead
        } catch {
            close()
        }
    }

    /// Tells the timeouts what the connection now waits for.
    func updateWait() {
        let now = core.clock()
        if outputOffset < output.count {
            return  // `.writing` is entered on write progress
        } else if !slots.isEmpty {
            timeouts.enter(.handling, now: now)
        } else if parser.hasPartialMessage {
            timeouts.enter(.readingRequest, now: now)
        } else {
            timeouts.enter(.idle, now: now)
        }
    }

    func isExpired(now: UInt64) -> Bool {
        if lingering { return now >= timeouts.since &+ Connection.lingerNanoseconds }
        return timeouts.isExpired(now: now)
    }

    /// How long a closing connection drains the peer's bytes before the socket is closed.
    static let lingerNanoseconds: UInt64 = 2_000_000_000

    /// Called by the sweep when a deadline passed.
    func timedOut() {
        if timeouts.wait == .readingRequest && slots.isEmpty && outputOffset == output.count && !lingering {
            // Best effort: tell a slow client why, without waiting for it to read.
            var bytes: [UInt8] = []
            core.encoder.encodeRefusal(
                core.responder.refusal(.requestTimeout, path: nil), date: loop.date(), into: &bytes)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        close()
    }

    /// Stop taking new requests; close once idle.
    func beginShutdown() {
        guard !closed else { return }
        shuttingDown = true
        if slots.isEmpty && outputOffset == output.count && !parser.hasPartialMessage {
            close()
        }
    }
}
