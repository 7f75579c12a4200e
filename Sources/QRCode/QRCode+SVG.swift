extension QRCode {
    /// The symbol as an SVG image: one path of its dark modules, a light background and the four-module quiet zone
    /// around it (§6.3.8), `scale` pixels a module. Only numbers are written into it: the text is safe inline in HTML.
    public func svg(scale: Int = 4) -> String {
        let side = size + 8
        var path = ""
        for (row, line) in modules.enumerated() {
            var column = 0
            while column < size {
                guard line[column] else {
                    column += 1
                    continue
                }
                var end = column
                while end < size, line[end] { end += 1 }
                path += "M\(column + 4) \(row + 4)h\(end - column)v1h-\(end - column)z"
                column = end
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(side * scale)" \
            height="\(side * scale)" shape-rendering="crispEdges" role="img" aria-label="QR code">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
