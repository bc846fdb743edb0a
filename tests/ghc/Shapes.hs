{-# LANGUAGE MagicHash #-}
-- | A program with known heap shapes, served to heapscope by the test stub
-- (tests/ghc/stub/). It builds everything, saves the objects the tests
-- look for, starts the stub (the socket appearing means "ready"), then
-- waits for its standard input to close. Meanwhile two threads run: a
-- counter and a garbage maker (so that GCs happen between pauses).
--
-- Saved objects, in this order (the tests rely on it):
--   0  the counter: an IORef Int a thread bumps about every millisecond
--   1  the Holder: 1000 Leak values, Holder -> list -> Map -> Leak
--   2  a list of 1,000,000 Ints, fully evaluated
--   3  the Shapes record: thunks, PAPs, MVar, IORef, arrays, ByteString, Text
--   4  the MVars and TVar the blocked threads wait on
--   5  a thunk whose evaluating thread was killed (now an AP_STACK)
--   6  a thunk a blocked thread is evaluating (a BLACKHOLE)
--   7  a compact region (GHC.Compact) holding a Map of 500 Strings
module Main (main) where

import Control.Concurrent
import Control.Concurrent.STM
import Control.Exception
import Control.Monad
import Data.Array (Array, elems, listArray)
import Data.Array.Unboxed (UArray)
import qualified Data.Array.Unboxed as U
import qualified Data.ByteString.Char8 as B
import Data.IORef
import qualified Data.Map.Strict as Map
import qualified Data.Text as T
import GHC.Compact (Compact, compact)
import GHC.Conc (ThreadStatus (..), threadStatus)
import GHC.Exts (Int (I#), Int#)
import Foreign.C.Types (CUInt (..))
import System.IO
import System.IO.Unsafe (unsafePerformIO)
import System.Mem (performMajorGC)

import BigFrame (BigFrameMarker (..), bigFrame)
import HeapscopeStub

-- | The planted leak: exactly 1000 are alive.
data Leak = Leak !Int String

data Holder = Holder [Map.Map Int Leak]

data Shapes = Shapes
  { thunks :: [Int]
  , paps :: [Int -> Int]
  , fullMVar :: MVar Int
  , listRef :: IORef [Int]
  , boxedArray :: Array Int String
  , unboxedArray :: UArray Int Int
  , smallBytes :: B.ByteString
  , largeBytes :: B.ByteString
  , text :: T.Text
  }

-- | The value of a CAF, so a root only through the RTS's CAF list (the
-- program is linked with -fkeep-cafs, so evaluated CAFs stay on it).
data CafMarker = CafMarker !Int

{-# NOINLINE cafMarker #-}
cafMarker :: CafMarker
cafMarker = CafMarker (length "a CAF")

-- | Reachable only from a PAP's payload, after an unboxed argument: found
-- only if the function's argument bitmap is read right.
data PapMarker = PapMarker Int

-- | Reachable only from a blocked thread's stack: found only if the stack
-- frames' bitmaps are read right.
data StackMarker = StackMarker Int

-- | What the blocked threads wait on (kept alive, or the GC would wake
-- them with BlockedIndefinitely exceptions).
data Waits = Waits (MVar ()) (MVar Int) (MVar ()) (TVar Int)

foreign import ccall safe "unistd.h sleep" c_sleep :: CUInt -> IO CUInt

{-# NOINLINE add3 #-}
add3 :: Int -> Int -> Int -> Int
add3 a b c = a + b + c

{-# NOINLINE mixed #-}
mixed :: Int# -> PapMarker -> Int -> Int
mixed n (PapMarker m) k = I# n + m + k

-- | Functions the compiler cannot see through: applied to too few
-- arguments, they make the RTS build PAPs (a known function would be
-- eta-expanded into a FUN instead).
data Opaque = Opaque (Int# -> PapMarker -> Int -> Int) (Int -> Int -> Int -> Int)

{-# NOINLINE opaque #-}
opaque :: Opaque
opaque = Opaque mixed add3

{-# NOINLINE expensive #-}
expensive :: Int -> Int
expensive n = sum [1 .. n * 1000]

buildHolder :: Int -> Int -> IO Holder
buildHolder maps perMap = do
  let leaksFrom m = [(k, Leak k ("leak " ++ show k)) | k <- [m * perMap .. (m + 1) * perMap - 1]]
      ms = [Map.fromList (leaksFrom m) | m <- [0 .. maps - 1]]
  _ <- evaluate (sum (map Map.size ms))
  return (Holder ms)

buildShapes :: IO Shapes
buildShapes = do
  let ts = map expensive [1 .. 5]
  _ <- evaluate (length ts) -- the spine, not the elements: five thunks
  ps <- case opaque of
    Opaque f g -> do
      ps <- mapM (\a -> evaluate (g a 1)) [1, 2, 3] -- PAPs of two pointers
      marker <- evaluate (PapMarker (length ts))
      p <- evaluate (f 3# marker) -- a PAP of a non-pointer and a pointer
      return (p : ps)
  mv <- newMVar 42
  ref <- newIORef [1 .. 100]
  let boxed = listArray (0, 99) [show i | i <- [0 .. 99 :: Int]]
      unboxed = U.listArray (0, 999) [0 .. 999]
      small = B.pack (replicate 100 'x') -- pinned, in a capability's pinned block
      large = B.replicate 10000 'y' -- pinned, a large object
      t = T.pack "a Text in the heap"
  _ <- evaluate (sum (map (sum . map fromEnum) (elems boxed))) -- Strings of C# boxes
  _ <- evaluate unboxed
  _ <- evaluate (B.length small + B.length large + T.length t)
  return (Shapes ts ps mv ref boxed unboxed small large t)

-- | Forks a thread and waits until it is blocked, so that what the next
-- one does finds it so even on a loaded machine.
forkBlocked :: IO () -> IO ThreadId
forkBlocked action = do
  t <- forkIO action
  let wait = do
        s <- threadStatus t
        case s of
          ThreadBlocked _ -> return ()
          _ -> threadDelay 1000 >> wait
  wait
  return t

-- | Threads blocked in different ways; returns what they wait on and the
-- thunk the black-hole pair is stuck on.
blockThreads :: IO (Waits, Int)
blockThreads = do
  never <- newEmptyMVar
  gate <- newEmptyMVar
  held <- newEmptyMVar
  tv <- newTVarIO 0
  _ <- forkBlocked (takeMVar never) -- BlockedOnMVar
  _ <- forkBlocked (threadDelay 1000000000) -- a delay (the timer manager's MVar)
  _ <- forkBlocked (atomically (readTVar tv >>= \v -> when (v == 0) retry)) -- BlockedOnSTM
  _ <- forkBlocked (void (c_sleep 100000)) -- BlockedOnCCall
  let stuck = unsafePerformIO (readMVar gate) + length [(), ()]
  _ <- forkBlocked (void (evaluate stuck)) -- owns the black hole, blocked on gate
  _ <- forkBlocked (void (evaluate stuck)) -- BlockedOnBlackHole
  stackSlot <- newIORef . Just . StackMarker . (+ 1) =<< readTVarIO tv
  _ <- forkBlocked $ do
    Just m <- readIORef stackSlot -- taken out: from now on only the stack holds it
    writeIORef stackSlot Nothing
    takeMVar never -- blocked; m is live across the wait
    hPutStrLn stderr (case m of StackMarker k -> show k)
  five <- newIORef 5
  bigSlot <- newIORef . Just . BigFrameMarker . (+ 2) =<< readTVarIO tv
  _ <- forkBlocked (void (bigFrame bigSlot five gate)) -- waits in a RET_BIG frame
  masked <- forkBlocked (uninterruptibleMask_ (takeMVar held))
  _ <- forkBlocked (throwTo masked ThreadKilled) -- BlockedOnMsgThrowTo
  return (Waits never gate held tv, stuck)

-- | A long, allocating loop that retains nothing.
spin :: Int -> Int -> Int
spin acc n = if n == 0 then acc else acc `seq` spin (acc + n `mod` 7) (n - 1)

-- | A thunk whose evaluation is interrupted: the thread is killed while
-- evaluating it, so the RTS freezes its stack into an AP_STACK.
interruptedThunk :: Int -> IO Int
interruptedThunk n = do
  let slow = spin 0 n -- a heap thunk (n is known only at run time)
  started <- newEmptyMVar
  worker <- forkIO (putMVar started () >> void (evaluate slow))
  takeMVar started
  threadDelay 50000 -- deep in the loop by now
  killThread worker
  return slow

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  counter <- newIORef (0 :: Int)
  _ <- forkIO (forever (modifyIORef' counter (+ 1) >> threadDelay 1000))
  -- garbage, so that minor GCs keep happening while a client works
  _ <- forkIO (forever (evaluate (length [1 .. 2000 :: Int]) >> threadDelay 1000))
  _ <- evaluate cafMarker
  holder <- buildHolder 10 100
  let big = [1 .. 1000000] :: [Int]
  _ <- evaluate (length big)
  shapes <- buildShapes
  (waits, stuck) <- blockThreads
  slow <- interruptedThunk (1000000000 + length (thunks shapes))
  region <- compact (Map.fromList [(i, show i) | i <- [1 .. 500 :: Int]])
  saveObjects
    [ Saved counter, Saved holder, Saved big, Saved shapes, Saved waits, Saved slow, Saved stuck
    , Saved (region :: Compact (Map.Map Int String)) ]
  performMajorGC
  performMajorGC
  withHeapscopeStub $ do
    hPutStrLn stderr "shapes: ready"
    r <- try (hGetContents stdin >>= evaluate . length)
    case r of
      Left e -> hPutStrLn stderr ("shapes: stdin: " ++ show (e :: IOException))
      Right _ -> return ()
  -- keep everything alive until the end
  touch (holder, big, shapes, waits)
  where
    touch x = void (evaluate x)
