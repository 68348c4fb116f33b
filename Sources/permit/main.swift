print("permit")
