# plugins: files are listed here as they land
