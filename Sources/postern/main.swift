print("postern")
