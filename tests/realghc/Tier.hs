{-# LANGUAGE BangPatterns, CPP, MagicHash, UnboxedTuples #-}
-- The program of the real-GHC tier (tests/realghc), linked with the
-- official ghc-debug stub. It builds its heap, makes a major GC, prints
-- "ready" on stdout and then holds still: it allocates nothing more (the
-- main thread sleeps, the workers wait on an MVar; realghc.py runs it with
-- +RTS -I0, so no idle GC moves anything between two commands).
--
-- What its heap holds after "ready", for tests to count:
--   Leak    exactly 1000 values (constructor Leak), in a Data.Map (containers)
--           of 1000 Bin nodes; built with TIER_ERAS (the profiled build on
--           GHC >= 9.10, run with +RTS -he): Leak 1..500 in user era 1,
--           Leak 501..1000 in era 2, what main allocates after them in
--           era 3 (the Map, the rest below)
--   Text    500 distinct strict Text values "text-0" .. "text-499" (text)
--   BS      300 distinct strict ByteString values "bytes-0" .. "bytes-299"
--           (bytestring), and the chunks below
--   threads 3 threads labelled tier-worker-1 .. tier-worker-3, blocked on an
--           MVar (with the main thread: at least 4 TSOs)
--   --list N     a list of N distinct boxed Ints: N (:) cells (default 0)
--   --mb M       M ByteStrings of 1 MiB each (ARR_WORDS of 1 MiB, large
--                pinned objects): M MiB (default 0)
--   --churn      before "ready", a thread on each capability allocates
--                pinned ByteStrings and drops them; nothing of it stays
--                reachable, but each capability keeps empty pinned blocks,
--                which the stub's ALL_BLOCKS lists twice (some 880 groups)
--   --lazy-map N a lazy Data.Map (Data.Map.Lazy) of min N 100 keys built by
--                N ML.insertWith (+): each insert into a key already there
--                leaves an unevaluated (+) thunk made inside containers (a
--                library built without -finfo-table-map; with -O, in code
--                specialised into Main, whose IPE entries have no source
--                position): N - 100 thunks for N >= 100, reachable from a
--                StablePtr of their own
--   --tick MS    after "ready", a thread prints "tick N" every MS ms: the
--                gaps show when the program did not run (paused). It
--                allocates a little, so with it the heap is not still.
--   --slices N   N ByteStrings "slice-000000" .. (6 digits) made by B.take
--                and B.drop of one larger ByteString, which only they hold:
--                N BS at offsets into one array (over a PlainPtr); and the
--                same for Text: N Texts "tslice-000000" .. at offsets into
--                one array (T.take, T.drop)
--   --malloc N   N ByteStrings "malloc-0" .. over mallocForeignPtrBytes
--                (contents MallocPtr: a pinned array and an IORef)
--   --foreign N  N ByteStrings "foreign-0" .. over malloc'd memory
--                (newForeignPtr_: PlainForeignPtr), outside the GHC heap
--   --lazy-lines N  N Strings "line-0" .. built lazily and forced after the
--                major GC, just before "ready": the evaluated thunks (the
--                list, each line, the lines' tails) stay BLACKHOLEs whose
--                indirectee is the value, as no GC runs after "ready"
--   --stack-held one more thread, labelled tier-stack-holder, blocked on the
--                workers' MVar inside a `catch` in Main's holdOnStack,
--                whose case continuation holds the one StackHeld value
--                (reachable only from that thread's stack; nothing else
--                is a StackHeld); the main thread is labelled tier-main
-- All of it is reachable from a StablePtr, so it stays alive.
module Main (main) where

import Control.Concurrent
import Control.Exception (SomeException, catch, evaluate)
import Control.Monad
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import qualified Data.ByteString.Internal as BI
import Data.Char (ord)
import Data.List (foldl')
import qualified Data.Map.Lazy as ML
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import Data.Word (Word8)
import Foreign.ForeignPtr (mallocForeignPtrBytes, newForeignPtr_, withForeignPtr)
import Foreign.Marshal.Alloc (mallocBytes)
import Foreign.Marshal.Array (pokeArray)
import Foreign.StablePtr (newStablePtr)
import GHC.Conc (labelThread)
import GHC.Exts (takeMVar#)
import GHC.IO (IO (IO), unIO)
import GHC.MVar (MVar (MVar))
import GHC.Debug.Stub (withGhcDebug)
import System.Environment (getArgs)
import System.IO
import System.Mem (performMajorGC)
#if defined(TIER_ERAS)
import GHC.Profiling.Eras (setUserEra)
#endif

data Leak = Leak !Int

-- held only by holdOnStack's stack frame (--stack-held)
data StackHeld = StackHeld !Int

data Held = Held (M.Map Int Leak) [T.Text] [B.ByteString] [Int] [B.ByteString] (MVar ())

era :: Word -> IO ()
#if defined(TIER_ERAS)
era = setUserEra
#else
era _ = return ()
#endif

option :: String -> [String] -> Int
option name args = case dropWhile (/= name) args of
  _ : n : _ -> read n
  _ -> 0

-- The bytes of an ASCII String.
ascii :: String -> [Word8]
ascii = map (fromIntegral . ord)

-- A ByteString over a MallocPtr (mallocForeignPtrBytes), as BC.pack never makes.
mallocBS :: String -> IO B.ByteString
mallocBS s = do
  fp <- mallocForeignPtrBytes (length s)
  withForeignPtr fp $ \p -> pokeArray p (ascii s)
  return $! BI.BS fp (length s)

-- A ByteString over malloc'd memory (PlainForeignPtr), outside the GHC heap.
foreignBS :: String -> IO B.ByteString
foreignBS s = do
  p <- mallocBytes (length s)
  pokeArray p (ascii s)
  fp <- newForeignPtr_ p
  return $! BI.BS fp (length s)

-- --slices N: N BS into one array, "slice-" and 6 digits each.
slicesOf :: Int -> [B.ByteString]
slicesOf n = [B.take 12 (B.drop (7 + 12 * i) whole) | i <- [0 .. n - 1]]
  where
    whole = BC.pack ("slices:" ++ concatMap (\i -> "slice-" ++ pad6 (show i)) [0 .. n - 1])

-- --slices N: N Texts into one array, "tslice-" and 6 digits each.
textSlicesOf :: Int -> [T.Text]
textSlicesOf n = [T.take 13 (T.drop (7 + 13 * i) whole) | i <- [0 .. n - 1]]
  where
    whole = T.pack ("slices:" ++ concatMap (\i -> "tslice-" ++ pad6 (show i)) [0 .. n - 1])

pad6 :: String -> String
pad6 d = replicate (6 - length d) '0' ++ d
-- (out of line, both: GHC would keep only the Int otherwise)
{-# NOINLINE mkStackHeld #-}
mkStackHeld :: Int -> StackHeld
mkStackHeld = StackHeld

{-# NOINLINE useStackHeld #-}
useStackHeld :: StackHeld -> IO ()
useStackHeld (StackHeld m) = print m

-- Blocks inside a catch, in a primitive call whose case continuation is
-- Main's own code (unoptimised IO would leave it to base's >>=): `held`
-- lives on across the call, so that frame holds it.
{-# NOINLINE holdOnStack #-}
holdOnStack :: MVar () -> Int -> IO ()
holdOnStack (MVar gate) n = blocked `catch` \e -> putStrLn ("tier: " ++ show (e :: SomeException))
  where
    blocked = IO $ \s0 -> case mkStackHeld n of
      !held -> case takeMVar# gate s0 of
        (# s1, () #) -> unIO (useStackHeld held) s1

-- --lazy-map N: the values stay thunks; only the map's spine is evaluated
lazyMap :: Int -> IO ()
lazyMap n = when (n > 0) $ do
  let m = foldl' (\acc i -> ML.insertWith (+) (i `mod` 100) i acc) ML.empty [1 .. n]
  _ <- evaluate (ML.size m)
  void (newStablePtr m)

main :: IO ()
main = withGhcDebug $ do
  args <- getArgs
  era 1
  first <- mapM (evaluate . Leak) [1 .. 500]
  era 2
  second <- mapM (evaluate . Leak) [501 .. 1000]
  era 3
  let leaks = M.fromList (zip [1 ..] (first ++ second))
  _ <- evaluate (M.size leaks)
  let texts = [T.pack ("text-" ++ show i) | i <- [0 .. 499 :: Int]]
  _ <- evaluate (sum (map T.length texts))
  let bytes = [BC.pack ("bytes-" ++ show i) | i <- [0 .. 299 :: Int]]
  _ <- evaluate (sum (map B.length bytes))
  let list = [1 .. option "--list" args]
  _ <- evaluate (sum list)
  chunks <- forM [1 .. option "--mb" args] $ \i ->
    evaluate (B.replicate (1024 * 1024) (fromIntegral i))
  when ("--churn" `elem` args) $ do
    caps <- getNumCapabilities
    done <- newEmptyMVar
    forM_ [0 .. caps - 1] $ \c -> forkOn c $ do
      forM_ [1 .. 2000 :: Int] $ \i -> evaluate (B.length (B.replicate (100 + i `mod` 900) 7))
      putMVar done ()
    replicateM_ caps (takeMVar done)
  waiting <- newEmptyMVar
  forM_ [1 .. 3 :: Int] $ \i -> do
    t <- forkIO (takeMVar waiting)
    labelThread t ("tier-worker-" ++ show i)
  when ("--stack-held" `elem` args) $ do
    t <- forkIO (holdOnStack waiting (4200 + length args))
    labelThread t "tier-stack-holder"
    myThreadId >>= \me -> labelThread me "tier-main"
  _ <- newStablePtr (Held leaks texts bytes list chunks waiting)
  slices <- mapM evaluate (slicesOf (option "--slices" args))
  textSlices <- mapM evaluate (textSlicesOf (option "--slices" args))
  mallocs <- mapM (\i -> mallocBS ("malloc-" ++ show i)) [0 .. option "--malloc" args - 1]
  foreigns <- mapM (\i -> foreignBS ("foreign-" ++ show i)) [0 .. option "--foreign" args - 1]
  let lazyLines = map (\i -> "line-" ++ show i) [0 .. option "--lazy-lines" args - 1]
  _ <- newStablePtr (slices, textSlices, mallocs, foreigns, lazyLines)
  lazyMap (option "--lazy-map" args)
  performMajorGC
  -- after the GC: the thunks of lazyLines are updated in place, into
  -- BLACKHOLEs that no later GC short-cuts
  mapM_ (\l -> evaluate (foldl' (\a c -> a + ord c) 0 l)) lazyLines
  putStrLn "ready"
  hFlush stdout
  let tick = option "--tick" args
  when (tick > 0) $ void $ forkIO $ forM_ [1 :: Int ..] $ \n -> do
    threadDelay (tick * 1000)
    putStrLn ("tick " ++ show n)
    hFlush stdout
  forever (threadDelay 1000000000)
