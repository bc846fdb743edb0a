{-# LANGUAGE CPP #-}
-- | One program built twice with a change (tests/ghc/test_ghc_cache.py):
-- the constructor of the saved values is named by NAME at build time
-- (-DNAME=Alpha or -DNAME=Omega, the same length, so the two binaries lay
-- out their info tables alike). A cache that decoded the rebuilt program
-- with the first build's answers would show the first name.
module Main (main) where

import Control.Exception (evaluate, try, IOException)
import Control.Monad (void)
import System.IO
import System.Mem (performMajorGC)

import HeapscopeStub

data Thing = NAME !Int

main :: IO ()
main = do
  let things = [NAME i | i <- [1 .. 300]]
  _ <- evaluate (length things)
  mapM_ (\(NAME i) -> void (evaluate i)) things
  saveObjects [Saved things]
  performMajorGC
  withHeapscopeStub $ do
    hPutStrLn stderr "rebuilt: ready"
    r <- try (hGetContents stdin >>= evaluate . length)
    case r of
      Left e -> hPutStrLn stderr ("rebuilt: stdin: " ++ show (e :: IOException))
      Right _ -> return ()
  void (evaluate (length things))
