-- | A program that grows on request (tests/ghc/test_ghc_diff.py): each line
-- N on its standard input adds N Grown values to the list it keeps (a saved
-- object, held by an IORef), runs a major GC, then prints "grown TOTAL" on
-- its standard output; the end of its input ends it. Between two pauses
-- taken around a request, exactly N more Grown closures are alive.
module Main (main) where

import Control.Exception (evaluate)
import Data.IORef
import System.IO
import System.Mem (performMajorGC)

import HeapscopeStub

data Grown = Grown !Int

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  kept <- newIORef ([] :: [Grown])
  saveObjects [Saved kept]
  performMajorGC
  withHeapscopeStub $ do
    hPutStrLn stderr "grow: ready"
    let loop total = do
          eof <- isEOF
          if eof
            then return ()
            else do
              n <- readLn :: IO Int
              old <- readIORef kept
              let new = [Grown (total + i) | i <- [1 .. n]] ++ old
              _ <- evaluate (sum [k | Grown k <- new])
              writeIORef kept new
              performMajorGC
              putStrLn ("grown " ++ show (total + n))
              loop (total + n)
    loop 0
