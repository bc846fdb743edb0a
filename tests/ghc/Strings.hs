-- | Duplicated strings for `heapscope strings` and `dump`
-- (tests/ghc/test_ghc_strings.py): five Text copies of "text dup 0" (text
-- 1.2, UTF-16), four ByteString copies of "bytes dup 0" (bytestring 0.10,
-- PS over a PlainPtr), three String copies of "string dup 0", and two
-- 100000-byte ByteStrings whose byte i is (i * 7 + 3) mod 256. Each copy
-- is built at run time from its index, so none is shared; all stay
-- reachable from the main thread until stdin closes.
module Main (main) where

import Control.Exception (evaluate, try, IOException)
import Control.Monad (void)
import qualified Data.ByteString as BS
import qualified Data.ByteString.Char8 as BC
import qualified Data.Text as T
import System.IO
import System.Mem (performMajorGC)

import HeapscopeStub

main :: IO ()
main = do
  let texts = [T.pack ("text dup " ++ show (i `div` 10)) | i <- [1 .. 5 :: Int]]
      bytes = [BC.pack ("bytes dup " ++ show (i `div` 10)) | i <- [1 .. 4 :: Int]]
      strings = [("string dup " ++ show (i `div` 10)) | i <- [1 .. 3 :: Int]]
      big = [BS.pack [fromIntegral ((k * 7 + 3 + j) `mod` 256) | k <- [0 .. 99999 :: Int]]
            | j <- [0, 256 :: Int]]
  mapM_ (evaluate . T.length) texts
  mapM_ (evaluate . BS.length) bytes
  mapM_ (evaluate . foldr seq ()) strings
  mapM_ (evaluate . BS.length) big
  _ <- evaluate (length texts + length bytes + length strings + length big)
  performMajorGC
  withHeapscopeStub $ do
    hPutStrLn stderr "strings: ready"
    r <- try (hGetContents stdin >>= evaluate . length)
    case r of
      Left e -> hPutStrLn stderr ("strings: stdin: " ++ show (e :: IOException))
      Right _ -> return ()
  void (evaluate (sum (map T.length texts) + sum (map BS.length bytes)
                  + sum (map length strings) + sum (map BS.length big)))
